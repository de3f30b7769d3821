// A Next.js App Router route handler (app/[...path]/route.js) serving the scenarios: Next passes a
// NextRequest; the client address is the x-real-ip header that the proxy in front of Next sets
// (Next.js itself has no client-address API).
import { scenarios } from '../../../scenarios.mjs';

const handle = scenarios();

export async function GET(request) {
  return handle(request, request.headers.get('x-real-ip') ?? undefined);
}
