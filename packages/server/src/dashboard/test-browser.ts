import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { ADMIN_TOKEN, type TestApp } from '../test/test-app.ts';

/** For tests: a browser on the dashboard, driven through `inject`. */

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export function sessionCookieOf(response: LightMyRequestResponse): string | undefined {
  const header = response.headers['set-cookie'];
  const cookies = Array.isArray(header) ? header : header ? [header] : [];
  return cookies.find((cookie) => cookie.startsWith('folio_session='));
}

export type DashboardBrowser = Awaited<ReturnType<typeof signIn>>;

/** A signed-in browser: its cookie, the page's CSRF token, and helpers to GET and POST. */
export async function signIn(t: TestApp) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    headers: FORM,
    payload: form({ token: ADMIN_TOKEN }),
  });
  assert.equal(response.statusCode, 303);
  const cookie = sessionCookieOf(response)!.split(';')[0]!;
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
  const home = await get('/dashboard');
  const csrf = /name="csrf" value="([^"]+)"/.exec(home.body)![1]!;
  const post = (url: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { ...FORM, cookie, ...headers },
      payload: form({ csrf, ...fields }),
    });
  /** POSTs, follows the redirect, and returns the page it lands on. */
  const submit = async (url: string, fields: Record<string, string> = {}) => {
    const answer = await post(url, fields);
    assert.equal(answer.statusCode, 303, `${url} answered ${answer.statusCode}: ${answer.body}`);
    return get(answer.headers.location as string);
  };
  return { cookie, csrf, get, post, submit };
}
