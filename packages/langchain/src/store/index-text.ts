/**
 * The texts a LangGraph index path selects in a value, with the path syntax
 * of LangGraph's stores: `$` (the whole value), `a.b`, `a[0]`, `a[-1]`,
 * `a[*]`, `*` (every field) and `{a,b.c}` (several fields). Strings, numbers
 * and booleans are taken as they are, objects and arrays as JSON.
 *
 * (`getTextAtPath` exported by `@langchain/langgraph-checkpoint` knows only
 * dotted string fields: with it, the default `$` indexed nothing.)
 */
export function textsAtPath(value: unknown, path: string): string[] {
  if (!path || path === '$') return [JSON.stringify(value, null, 2)];
  return collect(value, tokenize(path));
}

function leaf(value: unknown): string[] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return [String(value)];
  if (value === null || value === undefined) return [];
  return typeof value === 'object' ? [JSON.stringify(value, null, 2)] : [];
}

function collect(value: unknown, tokens: readonly string[]): string[] {
  if (tokens.length === 0) return leaf(value);
  const [token, ...rest] = tokens as [string, ...string[]];
  if (token.startsWith('[') && token.endsWith(']')) {
    if (!Array.isArray(value)) return [];
    const index = token.slice(1, -1);
    if (index === '*') return value.flatMap((item) => collect(item, rest));
    const n = Number.parseInt(index, 10);
    const i = n < 0 ? value.length + n : n;
    return Number.isInteger(i) && i >= 0 && i < value.length ? collect(value[i], rest) : [];
  }
  if (typeof value !== 'object' || value === null) return [];
  if (token.startsWith('{') && token.endsWith('}')) {
    return token
      .slice(1, -1)
      .split(',')
      .map((field) => field.trim())
      .filter(Boolean)
      .flatMap((field) => collect(value, tokenize(field)));
  }
  if (token === '*') return Object.values(value).flatMap((item) => collect(item, rest));
  return token in value ? collect((value as Record<string, unknown>)[token], rest) : [];
}

/** `a.b[*].c{d,e}` → `["a", "b", "[*]", "c", "{d,e}"]` (brackets and braces may nest). */
function tokenize(path: string): string[] {
  const tokens: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const char = path[i]!;
    if (char === '[' || char === '{') {
      if (current) tokens.push(current);
      current = '';
      const close = char === '[' ? ']' : '}';
      let depth = 0;
      let group = '';
      for (; i < path.length; i++) {
        const c = path[i]!;
        if (c === char) depth++;
        else if (c === close) depth--;
        group += c;
        if (depth === 0) break;
      }
      tokens.push(group);
    } else if (char === '.') {
      if (current) tokens.push(current);
      current = '';
    } else current += char;
  }
  if (current) tokens.push(current);
  return tokens;
}
