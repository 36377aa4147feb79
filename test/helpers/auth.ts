// Credentials for tests. Every request of a test goes through these helpers so
// that the same tests run unchanged once authentication is enforced.
import type { TestApp } from './app.js';

/** Headers that authenticate as the bootstrap administrator of tenant "default". */
export async function adminHeaders(_app: TestApp): Promise<Record<string, string>> {
  return {};
}
