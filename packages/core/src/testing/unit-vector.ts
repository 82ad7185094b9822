/** A unit vector of `dimension` whose first components are proportional to `values` (zero stays zero). */
export function unitVector(dimension: number, ...values: number[]): Float32Array {
  const v = new Float32Array(dimension);
  values.forEach((x, i) => {
    v[i] = x;
  });
  const n = Math.hypot(...v);
  return n === 0 ? v : v.map((x) => x / n);
}
