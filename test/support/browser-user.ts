/**
 * A user in a browser, for OAuth tests against oidc-provider: follows an authorization URL through the issuer's
 * login and consent pages, submitting each form as the user would, and stops at the redirect back to the app.
 */

/** The URL the authorization server sent the browser back to (the app's redirect URL with code, state, iss). */
export async function signInAndConsent(
  authorizationUrl: URL | string,
  redirectUrl: string,
  account = 'alice',
): Promise<string> {
  const cookies = new Map<string, string>();
  let url = String(authorizationUrl);
  for (let step = 0; step < 12; step++) {
    if (url.startsWith(redirectUrl)) return url;
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let res = await fetch(url, { redirect: 'manual', headers: { cookie } });
    if (/\/interaction\/[^/?]+$/.test(new URL(url).pathname) && res.status === 200) {
      const page = await res.text();
      const form: Record<string, string> = page.includes('name="login"')
        ? { prompt: 'login', login: account, password: 'any' }
        : { prompt: 'consent' };
      res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form),
      });
    }
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`step ${step}: ${res.status} without a redirect: ${await res.text()}`);
    url = new URL(location, url).href;
  }
  throw new Error('no redirect back to the app after 12 steps');
}
