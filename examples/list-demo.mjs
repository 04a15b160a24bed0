// Lists every agent's sessions in examples/demo-home (replaced by the amux CLI once it exists).
import { fileURLToPath } from 'node:url'
process.env.HOME = fileURLToPath(new URL('./demo-home', import.meta.url))
const { createClient, BUILT_IN_AGENTS } = await import('../index.mjs')
const mux = createClient()
for (const agent of BUILT_IN_AGENTS) {
  const sessions = await mux.sessions.list(agent)
  console.log(`${agent}: ${sessions.length} session(s)`)
  for (const s of sessions) console.log(`  ${s.unifiedId}  ${s.title}`)
}
