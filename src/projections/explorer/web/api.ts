/**
 * Asks the audit API (the same origin's /v1/…) with the bearer token the user typed, kept for the
 * tab only (sessionStorage). A 401 forgets the token. Errors keep the service's error code.
 * Owns: requests and the token. Imports nothing but types.
 */
const KEY = 'chio-explorer-token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const token = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (value: string) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

async function request(path: string): Promise<Response> {
  const bearer = token.get();
  const res = await fetch(path, {
    headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` },
    cache: 'no-store',
  });
  if (res.ok) return res;
  let code = `HTTP-${res.status}`;
  let message = res.statusText;
  try {
    const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
  } catch {
    // not the API's JSON error: keep the status line
  }
  if (res.status === 401) token.clear();
  throw new ApiError(res.status, code, message);
}

/** The parsed JSON answer of a GET. The caller checks its shape: the server is not trusted for the receipts' truth. */
export async function getJson<T>(path: string): Promise<T> {
  return (await (await request(path)).json()) as T;
}

/** The answer's exact text (a certificate to save as the service signed it). */
export async function getText(path: string): Promise<string> {
  return (await request(path)).text();
}

export const q = (params: Record<string, string | number | undefined | null>) => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) s.set(k, String(v));
  const text = s.toString();
  return text === '' ? '' : `?${text}`;
};
