import { useEffect, useState } from 'preact/hooks';

/** Where the page keeps the access token: sessionStorage is this origin's (port included) and this tab's. */
const TOKEN_KEY = 'agentmem-inspector-token';

/**
 * What the server says about this session (from /api/session, after the
 * token): the CSRF token for writes, whether writes are allowed, the store's name.
 */
export const config = { csrf: '', allowWrites: false, store: '' };

/**
 * The token bootstrap, before the first render: the token of the printed URL
 * (`?token=`) is kept in sessionStorage and leaves the address bar, so that a
 * reload keeps working; every request sends it as a header. Never a cookie:
 * the browser would send that to every server on 127.0.0.1.
 */
export async function startSession(): Promise<void> {
  const url = new URL(location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  Object.assign(config, await get<typeof config>('/api/session'));
}

function authorization(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

type Params = Record<string, string | number | undefined>;

export function query(params: Params): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function parse<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError('HTTP', text || response.statusText, response.status);
  }
  if (!response.ok) {
    const error = (body as { error?: { code: string; message: string } }).error;
    throw new ApiError(error?.code ?? 'HTTP', error?.message ?? response.statusText, response.status);
  }
  return body as T;
}

export async function get<T>(path: string, params: Params = {}): Promise<T> {
  return parse<T>(await fetch(`${path}${query(params)}`, { credentials: 'omit', headers: authorization() }));
}

export async function post<T>(path: string, body: unknown): Promise<T> {
  return parse<T>(
    await fetch(path, {
      method: 'POST',
      credentials: 'omit',
      headers: { ...authorization(), 'content-type': 'application/json', 'x-csrf-token': config.csrf },
      body: JSON.stringify(body),
    }),
  );
}

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
}

/** Fetches `path` whenever `key` changes (undefined: nothing to fetch yet). */
export function useGet<T>(path: string, params: Params | undefined): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ loading: params !== undefined });
  const key = params === undefined ? undefined : `${path}${query(params)}`;
  useEffect(() => {
    if (params === undefined) return;
    let live = true;
    setState((s) => ({ ...s, loading: true, error: undefined }));
    get<T>(path, params).then(
      (data) => live && setState({ data, loading: false }),
      (error: Error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return state;
}
