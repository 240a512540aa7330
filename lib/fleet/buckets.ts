// Visit lengths on a log scale, for the fleet's dwell percentiles without keeping each visit:
// 0–63 ms exact, then 32 buckets per doubling (each bucket's upper edge is ~2.2% above its lower
// edge). A percentile read from the counts is the lower edge of the bucket it falls in, so it is
// never more than 2.2% below the exact one and never above it.

const EXACT = 64;
const PER_DOUBLING = 32;

/** The bucket of a visit that lasted `ms`. */
export function dwellBucket(ms: number): number {
  const m = Math.max(0, Math.floor(ms));
  if (m < EXACT) return m;
  const b = EXACT + Math.floor(PER_DOUBLING * Math.log2(m / EXACT) + 1e-9);
  // floating point at an edge: the bucket whose lower edge is at or below m
  return bucketFloor(b) > m ? b - 1 : bucketFloor(b + 1) <= m ? b + 1 : b;
}

function floorOf(b: number): number {
  return b < EXACT ? b : Math.ceil(EXACT * 2 ** ((b - EXACT) / PER_DOUBLING) - 1e-9);
}

/** the floors of the buckets up to a year's visit (dwellBucket is on the engine's path: a lookup, not a power) */
const FLOORS = Array.from({ length: EXACT + PER_DOUBLING * 29 }, (_, b) => floorOf(b));

/** The shortest visit (ms) that falls in bucket `b`. */
export function bucketFloor(b: number): number {
  return b < FLOORS.length ? FLOORS[b]! : floorOf(b);
}

/**
 * The q-quantile (0..1, nearest rank) of the visits counted per bucket, as its bucket's lower
 * edge; null when there are none.
 */
export function quantile(counts: Map<number, number>, q: number): number | null {
  let total = 0;
  for (const n of counts.values()) total += n;
  if (total <= 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const b of [...counts.keys()].sort((x, y) => x - y)) {
    seen += counts.get(b)!;
    if (seen >= rank) return bucketFloor(b);
  }
  return null;
}
