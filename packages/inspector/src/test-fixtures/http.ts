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

/** Opens the tokened URL like a browser does; returns the session cookie and the page's CSRF token. */
export async function login(url: string): Promise<{ cookie: string; csrf: string; origin: string }> {
  const first = await http(url);
  const setCookie = [first.headers['set-cookie'] ?? []].flat()[0] ?? '';
  const cookie = setCookie.split(';')[0]!;
  const origin = new URL(url).origin;
  const page = await http(`${origin}/`, { headers: { cookie } });
  const csrf = /data-csrf="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return { cookie, csrf, origin };
}
