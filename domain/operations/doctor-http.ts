import type { DoctorDeps } from './doctor';

export const DEFAULT_DOCTOR_TIMEOUT_MS = 10_000;

/** An answer's status, or the reason there was none. */
export type Probe = { status: number } | { error: string };

/** One GET to an outside service, bounded in time; never throws. */
export async function probe(deps: DoctorDeps, url: string, headers: Record<string, string> = {}): Promise<Probe> {
  try {
    const response = await (deps.fetch ?? fetch)(url, {
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(deps.timeoutMs ?? DEFAULT_DOCTOR_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') return { error: 'no answer in time' };
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}
