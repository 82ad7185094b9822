import { request } from 'node:http';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json<T = unknown>(): T;
}

/** An HTTP request with full control of Host, Origin and Cookie (fetch forbids some of them). */
export function http(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: `${u.pathname}${u.search}`,
        method: options.method ?? 'GET',
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

/**
 * Opens the tokened URL as the page does: the token goes into the
 * `Authorization` header of every request, the CSRF token comes from /api/session.
 */
export async function login(
  url: string,
): Promise<{ headers: Record<string, string>; token: string; csrf: string; origin: string }> {
  const { origin, searchParams } = new URL(url);
  const token = searchParams.get('token') ?? '';
  const page = await http(url);
  if (page.status !== 200) throw new Error(`${url} answered ${page.status}: ${page.body}`);
  const headers = { authorization: `Bearer ${token}` };
  const session = await http(`${origin}/api/session`, { headers });
  if (session.status !== 200) throw new Error(`/api/session answered ${session.status}: ${session.body}`);
  return { headers, token, csrf: session.json<{ csrf: string }>().csrf, origin };
}
