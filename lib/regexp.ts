/** `s` as a literal inside a regular expression (every metacharacter escaped). */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
