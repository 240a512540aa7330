// Who decided a review, as counted toward a quorum. With accounts off a reviewer is a name typed
// into a field, so names are normalised before they are compared: NFKC, trimmed, case-folded
// ("ana", "ANA " and "Ａｎａ" are one person). A signed-in account's name is compared exactly.

/** The name as recorded: NFKC, trimmed; undefined when nothing is left. */
export function reviewerName(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const n = name.normalize("NFKC").trim();
  return n || undefined;
}

/** The name as compared when accounts are off (upper then lower: "ß" and "SS" fold alike). */
export const foldName = (name: string): string => name.normalize("NFKC").trim().toUpperCase().toLowerCase();

/** Whether two recorded names are one person (`verified`: signed-in names, compared exactly). */
export const sameReviewer = (a: string, b: string, verified = false): boolean => (verified ? a === b : foldName(a) === foldName(b));
