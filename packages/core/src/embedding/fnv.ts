/** 32-bit FNV-1a over UTF-16 code units: fast, stable across platforms and releases. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) h = fnvStep(h, text.charCodeAt(i));
  return h;
}

/** One code unit of FNV-1a: `fnvStep(fnv1a(s), c)` is `fnv1a(s + String.fromCharCode(c))`. */
export function fnvStep(h: number, code: number): number {
  return Math.imul(h ^ code, 0x01000193) >>> 0;
}
