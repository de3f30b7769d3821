/**
 * Mutant: the client address read from X-Forwarded-For's leftmost entry, the one the client writes
 * (brendanlong/lion-reader#983 on Fly; every proxy that appends): a fresh made-up value is a fresh
 * bucket, and a victim's address spends the victim's. platforms.test.ts must catch it.
 */
export const leftmostHop = (request: Request): string | undefined => request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() || undefined;
