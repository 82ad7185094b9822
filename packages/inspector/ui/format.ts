export const fmt = {
  n: (x: number) => x.toLocaleString('en-US'),
  score: (x: number | undefined) => (x === undefined ? '–' : x.toFixed(3)),
  pct: (x: number) => `${(x * 100).toFixed(1)}%`,
  date: (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) : '–'),
  hours: (h: number | null) =>
    h === null || !Number.isFinite(h) ? 'never decays' : h % 24 === 0 ? `${h / 24} d` : `${h} h`,
  tenant: (t: string) => (t === '' ? '(default)' : t),
};
