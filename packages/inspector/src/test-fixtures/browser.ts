import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** A Chromium on this machine: $AGENTMEM_CHROMIUM, $CHROME_PATH, or Debian's and the usual install paths. */
export function findChromium(): string | undefined {
  return [
    process.env.AGENTMEM_CHROMIUM,
    process.env.CHROME_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
  ].find((p): p is string => !!p && existsSync(p));
}

export const NO_CHROMIUM =
  'no Chromium found: install it (`apt-get install -y chromium`) or set AGENTMEM_CHROMIUM to its executable';

/**
 * Headless Chromium driven by playwright-core (no browser download). The
 * host rule lets a test reach the inspector under a foreign name, as a DNS
 * rebinding attack would.
 */
export async function launchChromium(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  const args = ['--host-resolver-rules=MAP rebind.test 127.0.0.1'];
  // Chromium's sandbox refuses to run as root (CI containers).
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return chromium.launch({ executablePath, args, headless: true });
}
