/**
 * LangGraph namespaces are tuples of labels (`["memories", "user-42"]`).
 * agentmem namespaces are strings: `lg:` + the labels, each URI-encoded, joined
 * by `/` — so any label (even with `/` or `:`) round-trips, and LangGraph items
 * never mix with agentmem's own memory namespaces.
 */
export const LANGGRAPH_PREFIX = 'lg:';

export function toAgentmemNamespace(tuple: readonly string[]): string {
  return LANGGRAPH_PREFIX + tuple.map(encodeURIComponent).join('/');
}

export function fromAgentmemNamespace(namespace: string): string[] | undefined {
  if (!namespace.startsWith(LANGGRAPH_PREFIX)) return undefined;
  const rest = namespace.slice(LANGGRAPH_PREFIX.length);
  return rest === '' ? [] : rest.split('/').map(decodeURIComponent);
}

export function hasPrefix(tuple: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= tuple.length && prefix.every((label, i) => tuple[i] === label);
}
