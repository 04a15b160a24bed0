// Compiled by `tsc --strict` in the test suite: the spec's SessionManager interface, copied
// verbatim, must be assignable to what createClient().sessions is, and back once the methods
// beyond the spec (listAll) are set aside: the spec's surface is there, unchanged.
import {
  createClient,
  type AgentName,
  type SessionListOptions,
  type SessionSummary,
  type Session,
  type SessionQuery,
  type CostAggregationOptions,
  type CostSummary,
  type SessionDiff,
} from '../index.js'

interface SpecSessionManager {
  list(agent: AgentName, options?: SessionListOptions): Promise<SessionSummary[]>;
  get(agent: AgentName, sessionId: string): Promise<Session>;
  search(query: SessionQuery): Promise<SessionSummary[]>;
  totalCost(options?: CostAggregationOptions): Promise<CostSummary>;
  export(agent: AgentName, sessionId: string, format: 'json' | 'jsonl' | 'markdown'): Promise<string>;
  diff(
    a: { agent: AgentName; sessionId: string },
    b: { agent: AgentName; sessionId: string }
  ): Promise<SessionDiff>;
  resolveUnifiedId(agent: AgentName, nativeSessionId: string): string;
  resolveNativeId(unifiedId: string): { agent: AgentName; nativeSessionId: string } | null;
}

const ours = createClient().sessions
const asSpec: SpecSessionManager = ours
// Beyond the spec, documented as additions: listAll, and the files and recap calls.
const back: Omit<typeof ours, 'listAll' | 'touched' | 'touches' | 'recap'> = asSpec
const listAll: (options?: SessionListOptions) => Promise<SessionSummary[]> = ours.listAll
const stamp: Date = ({} as SessionSummary).createdAt
const tokens: number = ({} as CostSummary).inputTokens
export { asSpec, back, listAll, stamp, tokens }
