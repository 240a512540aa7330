/** Is this request path's percent-encoding malformed? (the guard answers such requests 400) */
export function badPath(url: string | undefined): boolean;
