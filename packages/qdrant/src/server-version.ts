import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The client's own compatibility check (`checkCompatibility` of `QdrantClient`) asks the server for its
 * version as the client is constructed, so with Qdrant unreachable it prints "Failed to obtain server
 * version ... Set checkCompatibility=false" before agentmem's own `BACKEND_UNAVAILABLE` error, naming an
 * option a CLI user cannot set. The backend turns the client's check off and runs the same comparison
 * here, after its first successful request.
 */

let clientVersion: string | null | undefined;

/** The installed `@qdrant/js-client-rest` version, or undefined when it cannot be read (a bundle). */
export function qdrantClientVersion(): string | undefined {
  if (clientVersion === undefined) {
    clientVersion = null;
    try {
      const here = typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
      // Its exports map hides package.json: walk up from the entry point to the package's folder.
      let dir = dirname(createRequire(here).resolve('@qdrant/js-client-rest'));
      for (let i = 0; i < 5; i++, dir = dirname(dir)) {
        try {
          const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
            name?: string;
            version?: string;
          };
          if (pkg.name === '@qdrant/js-client-rest' && typeof pkg.version === 'string') {
            clientVersion = pkg.version;
            break;
          }
        } catch {
          // no package.json at this level
        }
      }
    } catch {
      // not resolvable from this file
    }
  }
  return clientVersion ?? undefined;
}

const parse = (v: string) => /^v?(\d+)\.(\d+)/.exec(v.trim());

/** The client's rule: the same major version and minor versions at most one apart. */
export function versionsCompatible(client: string, server: string): boolean {
  const a = parse(client);
  const b = parse(server);
  if (!a || !b) return false;
  return a[1] === b[1] && Math.abs(Number(a[2]) - Number(b[2])) <= 1;
}

/**
 * The warning the client would have printed, or undefined when the versions fit or either is not a
 * release number (a server built from source reports "master": nothing to compare, so no noise).
 */
export function incompatibilityWarning(client: string | undefined, server: unknown): string | undefined {
  if (!client || typeof server !== 'string' || !parse(server) || versionsCompatible(client, server)) return undefined;
  return `agentmem: @qdrant/js-client-rest ${client} may not work with Qdrant server ${server} (the client supports servers of the same major version and at most one minor version apart). Upgrade the server or install a matching client; pass checkCompatibility: false to QdrantBackend to silence this.`;
}
