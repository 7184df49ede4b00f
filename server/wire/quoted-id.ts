/**
 * An id from a request's path in a refusal's words: quoted where it is printable ASCII of at most
 * 100 characters (every id Coffer or its registry writes is), else not repeated, `otherwise` said
 * instead. A path's id may be 5,000 characters, a NUL, or anything else that would lie on the
 * owner's screen or fill a log (helper 176).
 */
export const quotedIdOr = (id: string, otherwise: string): string => (/^[\x21-\x7e]{1,100}$/.test(id) ? JSON.stringify(id) : otherwise);
