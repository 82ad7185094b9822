import { execFile } from 'node:child_process';

export interface DetectBranchOptions {
  /** Directory of the git work tree; default `process.cwd()`. */
  cwd?: string;
  /** Give up on git after this long; default 2000 ms. */
  timeoutMs?: number;
  /** Used on detached HEAD, without git or outside a repository; default `main`. */
  fallback?: string;
}

/**
 * The current git branch (`git rev-parse --abbrev-ref HEAD`). Detached HEAD,
 * a missing git binary, no repository or a slow git all give the fallback:
 * memory keeps working, just on the default branch.
 */
export function detectGitBranch(options: DetectBranchOptions = {}): Promise<string> {
  const fallback = options.fallback ?? 'main';
  return new Promise((resolve) => {
    execFile(
      'git',
      ['rev-parse', '--abbrev-ref', 'HEAD'],
      { cwd: options.cwd ?? process.cwd(), timeout: options.timeoutMs ?? 2000, windowsHide: true },
      (error, stdout) => {
        const branch = String(stdout ?? '').trim();
        resolve(error || branch === '' || branch === 'HEAD' ? fallback : branch);
      },
    );
  });
}

/** Options of `createAgentMemory` for branch-scoped memory. */
export interface BranchSettings {
  /**
   * Take the branch from git when `branch` is not given (`true`, or options
   * such as the work tree `cwd`); `branch` stays the fallback.
   */
  detectBranch?: boolean | Omit<DetectBranchOptions, 'fallback'>;
}
