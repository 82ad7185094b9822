/** Trials per fault scenario: FAULT_SCALE=short (CI), default, or full (npm run faults). */
export function faultRuns(normal: number): number {
  const scale = process.env.FAULT_SCALE;
  if (scale === 'short') return Math.max(1, Math.round(normal / 10));
  if (scale === 'full') return normal * 10;
  return normal;
}

/** Test timeout to match: the full scale runs ten times the trials on a loaded machine. */
export function faultTimeout(): number {
  return process.env.FAULT_SCALE === 'full' ? 900_000 : 120_000;
}
