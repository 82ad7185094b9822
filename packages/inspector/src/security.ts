import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/**
 * Everything the browser may load: only this origin, no inline script or
 * style, no frames, no forms elsewhere, no remote anything.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const CSRF_HEADER = 'x-csrf-token';

export interface Secrets {
  /**
   * In the printed URL once; the page keeps it (sessionStorage, which only
   * this origin, port included, can read) and sends it as a header. Never a
   * cookie: cookies are not per port, so the browser would send one to every
   * other server on 127.0.0.1.
   */
  token: string;
  /** Sent back by the page on every write (a header other origins cannot set). */
  csrf: string;
}

export function newSecrets(): Secrets {
  return { token: randomBytes(24).toString('base64url'), csrf: randomBytes(24).toString('base64url') };
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The names this server answers to: loopback only, on its own port (no DNS rebinding). */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** The token in the `Authorization: Bearer <token>` header, if any. */
function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer ([\w-]+)$/.exec(header ?? '');
  return match?.[1];
}

/** What anyone on this machine may load: the page (no data, no secret in it) and its bundle. */
const PUBLIC_PATHS = new Set(['/', '/assets/app.js', '/assets/app.css']);

const UNAUTHORIZED =
  'Not authorized: open the URL that `agentmem inspect` printed (it carries the access token), in the browser of this machine.';

/**
 * Host and Origin checks, the token on every API request (the
 * `Authorization` header the page sends; a token in the query only opens the
 * page, once), CSRF on every non-GET request, and the security headers on
 * every answer. `port()` is read per request: it is known only after listening.
 */
export function security(secrets: Secrets, port: () => number): MiddlewareHandler {
  return async (c, next) => {
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Frame-Options', 'DENY');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
    c.header('Cross-Origin-Resource-Policy', 'same-origin');
    c.header('Cache-Control', 'no-store');
    const hosts = allowedHosts(port());
    const host = c.req.header('host');
    if (!host || !hosts.has(host)) return c.text(`Host ${host ?? '(none)'} is not allowed: use ${[...hosts][0]}.`, 403);
    const origin = c.req.header('origin');
    if (origin !== undefined && !hosts.has(origin.replace(/^http:\/\//, ''))) {
      return c.text(`Requests from ${origin} are not allowed.`, 403);
    }
    if (c.req.header('sec-fetch-site') === 'cross-site') return c.text('Cross-site requests are not allowed.', 403);

    const fromQuery = c.req.query('token');
    // A wrong token in the printed URL's form is refused outright (a typo, or a stale URL of an earlier run).
    if (fromQuery !== undefined && !same(fromQuery, secrets.token)) return c.text(UNAUTHORIZED, 401);
    const isPublic = (c.req.method === 'GET' || c.req.method === 'HEAD') && PUBLIC_PATHS.has(c.req.path);
    if (!isPublic && !same(bearer(c.req.header('authorization')), secrets.token)) return c.text(UNAUTHORIZED, 401);

    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      // Same-origin pages send Origin on every POST; a missing one is a non-browser client or a stripped request.
      if (origin === undefined) return c.text('A write needs the Origin header of this page.', 403);
      if (!same(c.req.header(CSRF_HEADER), secrets.csrf))
        return c.text('Missing or wrong CSRF token: reload the page.', 403);
    }
    await next();
  };
}
