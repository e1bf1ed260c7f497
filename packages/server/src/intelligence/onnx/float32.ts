const scratch = new Float32Array(1);
const bits = new Uint32Array(scratch.buffer);

/**
 * The largest float32 that is `<= x` (NaN stays NaN).
 *
 * A float32 input `v` satisfies `v <= x` exactly when `v <= float32AtMost(x)`, so a split
 * threshold rounded this way sends every float32 input to the same branch as the float64
 * threshold did; rounding to nearest (`Math.fround`) would not when it rounds up.
 *
 * @example
 * float32AtMost(0.1) // 0.099999994..., whereas Math.fround(0.1) is 0.100000001...
 */
export function float32AtMost(x: number): number {
  const nearest = Math.fround(x);
  if (!(nearest > x)) return nearest;
  // Rounded up: step one float32 towards -Infinity. -0 and +0 both become the smallest negative.
  if (nearest === 0) return -1.401298464324817e-45;
  scratch[0] = nearest;
  bits[0] += nearest > 0 ? -1 : 1;
  return scratch[0];
}
