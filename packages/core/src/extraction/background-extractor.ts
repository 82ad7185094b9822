import type { AgentMemory } from '../agent-memory';
import type { ConflictCheckResult, ConflictResolution } from '../conflicts';
import { invalidInput } from '../errors';
import { contentHash } from '../text';
import type { ExtractedFact } from './parse-facts';

export interface Exchange {
  user: string;
  assistant: string;
}

export interface ExtractionUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/**
 * Runs the extraction model on one exchange (any runtime). When the model
 * answered but the answer is unusable, throw an error carrying `usage`, so the
 * cost is still counted.
 */
export type FactExtractor = (exchange: Exchange) => Promise<{ facts: ExtractedFact[]; usage?: Partial<ExtractionUsage> }>;

export interface ExtractionReport {
  tenant: string;
  branch: string;
  exchange: Exchange;
  facts: ExtractedFact[];
  /** Below `minImportance`: not stored. */
  skipped: ExtractedFact[];
  outcomes: { fact: ExtractedFact; outcome: ConflictCheckResult }[];
  usage: ExtractionUsage;
}

export interface BackgroundExtractorOptions {
  extract: FactExtractor;
  /** Facts below this importance are not stored; default 0.3. */
  minImportance?: number;
  /** How a fact that contradicts a memory is resolved; default: the store's (supersede). */
  resolution?: ConflictResolution;
  /** Tag and metadata source written on extracted memories. */
  source?: string;
  onExtraction?: (report: ExtractionReport) => void;
  /** Failures land here; they never reach the user's call. */
  onError?: (error: unknown) => void;
}

const SEEN_EXCHANGES = 1000;

/**
 * The background sub-agent: after a response, extract durable facts and
 * store them through the conflict check, without delaying the user. The same
 * exchange is extracted once; `idle()` waits for everything scheduled.
 */
export class BackgroundExtractor {
  readonly usage = { calls: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  private readonly seen = new Set<string>();
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly options: BackgroundExtractorOptions) {
    if (typeof options?.extract !== 'function') throw invalidInput('BackgroundExtractor needs an extract function.');
    const min = options.minImportance;
    if (min !== undefined && !(typeof min === 'number' && min >= 0 && min <= 1)) {
      throw invalidInput(`minImportance must be a number from 0 to 1, got ${String(min)}.`);
    }
  }

  /** Schedules extraction of one exchange; false when it was already extracted (retries, double middleware). */
  schedule(memory: AgentMemory, exchange: Exchange): boolean {
    if (!exchange.user.trim() || !exchange.assistant.trim()) return false;
    const key = contentHash(JSON.stringify([memory.tenant, memory.branch, exchange.user, exchange.assistant]));
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    if (this.seen.size > SEEN_EXCHANGES) this.seen.delete(this.seen.values().next().value!);
    const job = this.run(memory, exchange, key);
    this.pending.add(job);
    void job.finally(() => this.pending.delete(job));
    return true;
  }

  /** Resolves when every scheduled extraction has finished (tests, serverless handlers). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private report(error: unknown): void {
    try {
      (this.options.onError ?? ((e) => console.warn('[agentmem] extraction failed; the call went on:', e)))(error);
    } catch {
      // A throwing error handler must not fail anything either.
    }
  }

  private async run(memory: AgentMemory, exchange: Exchange, key: string): Promise<void> {
    try {
      const { facts, usage = {} } = await this.options.extract(exchange);
      const cost = this.spend(usage);
      const min = this.options.minImportance ?? 0.3;
      const source = this.options.source ?? 'extraction';
      const outcomes: ExtractionReport['outcomes'] = [];
      // One at a time, so later facts are checked against earlier ones.
      for (const fact of facts.filter((f) => f.importance >= min)) {
        try {
          // The fact's entities (the model's) join those the offline extractor finds in its content.
          const outcome = await memory.rememberWithConflictCheck(
            { ...fact, tags: ['extracted'], metadata: { source }, context: exchangeContext(exchange) },
            this.options.resolution ? { resolution: this.options.resolution } : {},
          );
          outcomes.push({ fact, outcome });
        } catch (error) {
          this.report(error); // one bad fact does not lose the others
        }
      }
      this.options.onExtraction?.({
        tenant: memory.tenant,
        branch: memory.branch,
        exchange,
        facts,
        skipped: facts.filter((f) => f.importance < min),
        outcomes,
        usage: cost,
      });
    } catch (error) {
      this.seen.delete(key); // not extracted: a retry of the same exchange may try again
      // An answer that could not be used was still paid for: extractors attach its `usage` to the error.
      const usage = (error as { usage?: Partial<ExtractionUsage> } | null)?.usage;
      if (usage && typeof usage === 'object') this.spend(usage);
      this.report(error);
    }
  }

  private spend(usage: Partial<ExtractionUsage>): ExtractionUsage {
    const cost: ExtractionUsage = {
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      totalTokens: usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0),
    };
    this.usage.calls++;
    this.usage.inputTokens += cost.inputTokens;
    this.usage.outputTokens += cost.outputTokens;
    this.usage.totalTokens += cost.totalTokens;
    return cost;
  }
}

/** Characters of each side of an exchange kept as a fact's context: the question matters, not a long answer. */
const CONTEXT_CHARS = 1000;

/**
 * The exchange a fact came from, as its context: found by the words the user
 * used even when the fact is phrased differently, never shown as the fact.
 */
export function exchangeContext(exchange: Exchange): string {
  const cut = (t: string) => (t.length > CONTEXT_CHARS ? `${t.slice(0, CONTEXT_CHARS)}…` : t);
  return `user: ${cut(exchange.user.trim())}\nassistant: ${cut(exchange.assistant.trim())}`;
}
