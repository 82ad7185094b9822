import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface UiAssets {
  js: string;
  css: string;
}

// A variable, so that bundlers leave the build tool out of the package.
const ESBUILD = 'esbuild';

/** The UI entry in the repository (absent from the published package, which ships the built bundle). */
export function uiEntry(): string {
  return fileURLToPath(new URL('../ui/main.ts', import.meta.url));
}

/**
 * Bundles the UI (Preact, htm, uPlot and our code, CSS included) into one
 * script and one stylesheet: no CDN, nothing fetched at run time.
 */
export async function bundleUi(): Promise<UiAssets> {
  const esbuild = (await import(ESBUILD)) as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: [uiEntry()],
    bundle: true,
    format: 'esm',
    target: 'es2020',
    minify: true,
    write: false,
    outdir: 'inspector-ui',
    entryNames: 'app',
    legalComments: 'eof',
    logLevel: 'silent',
  });
  const text = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: text('.js'), css: text('.css') };
}

let cached: Promise<UiAssets> | undefined;

/** The built bundle next to the compiled server (dist/ui), else a fresh build from the sources (development, tests). */
export function loadAssets(): Promise<UiAssets> {
  cached ??= (async () => {
    const built = new URL('./ui/', import.meta.url);
    const js = fileURLToPath(new URL('app.js', built));
    if (existsSync(js)) {
      return { js: readFileSync(js, 'utf8'), css: readFileSync(fileURLToPath(new URL('app.css', built)), 'utf8') };
    }
    if (!existsSync(uiEntry())) {
      throw new Error('The inspector UI bundle is missing (dist/ui/app.js): reinstall @agentmem/inspector.');
    }
    return bundleUi();
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
