import { type HistoryEntry, type Memory, type RecallResult, statusOf } from '@agentmem/core';

export interface Column {
  key: string;
  /** Default: the key in upper case. */
  header?: string;
  align?: 'left' | 'right';
  /** Longer cells are cut to this width with an ellipsis. */
  max?: number;
}

export type Row = Record<string, unknown>;

const ELLIPSIS = '…';

/** "1 memory", "2 memories": a count with its noun in the right number. */
export function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One line, at most `max` characters (whitespace runs collapse; a cut ends in …). */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  return max <= 1 ? ELLIPSIS.slice(0, max) : `${flat.slice(0, max - 1).trimEnd()}${ELLIPSIS}`;
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(3);
  if (Array.isArray(value)) return value.map(cell).join(',');
  return JSON.stringify(value);
}

const MIN_LAST_COLUMN = 20;

/**
 * Aligned plain-text table. Columns default to the keys of the first row.
 * With `width` (the terminal's), the last column is cut so that lines fit.
 * Returns '' for no rows, so callers decide what "empty" says.
 */
export function renderTable(
  rows: readonly Row[],
  columns?: readonly (string | Column)[],
  options: { width?: number } = {},
): string {
  if (rows.length === 0) return '';
  const cols: Column[] = (columns ?? Object.keys(rows[0]!)).map((c) => (typeof c === 'string' ? { key: c } : c));
  const headers = cols.map((c) => c.header ?? c.key.toUpperCase());
  let cells = rows.map((row) => cols.map((c) => truncate(cell(row[c.key]), c.max ?? 80)));
  let widths = cols.map((_, i) => Math.max(headers[i]!.length, ...cells.map((r) => r[i]!.length)));
  const total = widths.reduce((sum, w) => sum + w, 0) + 2 * (cols.length - 1);
  const last = cols.length - 1;
  if (options.width && total > options.width && widths[last]! > MIN_LAST_COLUMN) {
    const room = Math.max(MIN_LAST_COLUMN, widths[last]! - (total - options.width));
    cells = cells.map((r) => r.map((v, i) => (i === last ? truncate(v, room) : v)));
    widths = cols.map((_, i) => Math.max(headers[i]!.length, ...cells.map((r) => r[i]!.length)));
  }
  const line = (values: string[]) =>
    values
      .map((v, i) => (cols[i]!.align === 'right' ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

export function toJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** "dense #2 (0.412) · keyword #1 (3.207)": where each signal ranked the memory, and its raw score. */
export function formatSignals(signals: RecallResult['signals']): string {
  const parts: string[] = [];
  if (signals.dense) parts.push(`dense #${signals.dense.rank} (${signals.dense.score.toFixed(3)})`);
  if (signals.keyword) parts.push(`keyword #${signals.keyword.rank} (${signals.keyword.score.toFixed(3)})`);
  return parts.join(' · ') || '-';
}

export const RECALL_COLUMNS: readonly Column[] = [
  { key: 'id', max: 30 },
  { key: 'type' },
  { key: 'score', align: 'right' },
  { key: 'signals', max: 40 },
  { key: 'content', max: 70 },
];

/** RECALL_COLUMNS with a status column after the type (recall --include-superseded). */
export const RECALL_STATUS_COLUMNS: readonly Column[] = [
  ...RECALL_COLUMNS.slice(0, 2),
  { key: 'status' },
  ...RECALL_COLUMNS.slice(2),
];

export function recallRows(results: readonly RecallResult[]): Row[] {
  return results.map((r) => ({
    id: r.memory.id,
    type: r.memory.type,
    status: statusOf(r.memory),
    score: r.score,
    signals: formatSignals(r.signals),
    content: r.memory.content,
  }));
}

/** Recall results as JSON: the scores and signals, with the memory itself. */
export function recallJson(results: readonly RecallResult[]) {
  return results.map((r) => ({
    id: r.memory.id,
    type: r.memory.type,
    score: r.score,
    relevance: r.relevance,
    signals: r.signals,
    content: r.memory.content,
    memory: r.memory,
  }));
}

export const HISTORY_COLUMNS: readonly Column[] = [
  { key: 'at' },
  { key: 'action' },
  { key: 'agent', max: 20 },
  { key: 'detail', max: 30 },
  { key: 'content', max: 60 },
];

export function historyRows(entries: readonly HistoryEntry[]): Row[] {
  return entries.map((e) => ({
    at: e.at,
    action: e.action,
    agent: e.agentId ?? '',
    detail: e.detail ?? '',
    content: e.memory.content,
  }));
}

/** Multi-line description of one memory (previews before destructive commands). */
export function describeMemory(m: Memory): string {
  const status = m.supersededBy ? `superseded by ${m.supersededBy}` : m.prunedAt ? `pruned ${m.prunedAt}` : 'active';
  return [
    `id:         ${m.id}`,
    `type:       ${m.type} (namespace ${m.namespace}${m.tenant ? `, tenant ${m.tenant}` : ''})`,
    `importance: ${m.importance}`,
    ...(m.tags.length > 0 ? [`tags:       ${m.tags.join(', ')}`] : []),
    `status:     ${status}`,
    `created:    ${m.createdAt}`,
    `content:    ${truncate(m.content, 200)}`,
  ].join('\n');
}
