// vitest's global setup: a throw-away PostgreSQL cluster for the team database's tests
// (`__test__/team-*.test.mjs`, which read it with `inject('pgUrl')`), unless AGENT_MUX_TEST_PG
// names a server already. Started only when a team test is selected; none is when PostgreSQL is
// not installed (the tests then skip, or fail under AGENT_MUX_REQUIRE_FIXTURES=1).
import { findBin, startCluster, stopCluster } from '../scripts/pg.mjs'

export default async function setup(project) {
  // `vitest run __test__/x.test.mjs` names its files (or parts of their names); a bare run
  // selects them all.
  const named = process.argv.slice(2).filter((a) => !a.startsWith('-') && a !== 'run' && !a.includes('vitest'))
  if (named.length && !named.some((f) => f.includes('team'))) return
  if (process.env.AGENT_MUX_TEST_PG) {
    project.provide('pgUrl', process.env.AGENT_MUX_TEST_PG)
    return
  }
  if (!findBin()) {
    project.provide('pgUrl', '')
    return
  }
  const cluster = await startCluster()
  project.provide('pgUrl', cluster.url)
  return () => stopCluster(cluster.dir)
}
