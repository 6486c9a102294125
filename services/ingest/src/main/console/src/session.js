// Who the console calls as. Open mode: nobody (every request is answered). Secure mode: the user
// signed in through Flash's OIDC provider (authorization code + PKCE, oidc-client-ts); every API
// call and event stream carries their access token.
import { UserManager, WebStorageStateStore } from 'oidc-client-ts';

let config = { secure: false };
let manager = null;

/** Reads /console/config; in secure mode signs in (a redirect to the provider) when nobody is. Resolves when ready. */
export async function startSession() {
  const r = await fetch('/console/config');
  config = await r.json();
  if (!config.secure) return { secure: false, user: null };
  manager = new UserManager({
    authority: config.authority,
    client_id: config.clientId,
    redirect_uri: `${window.location.origin}/`,
    post_logout_redirect_uri: `${window.location.origin}/`,
    response_type: 'code',
    scope: 'openid profile',
    automaticSilentRenew: true,
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
  });
  const params = new URLSearchParams(window.location.search);
  if (params.has('code') && params.has('state')) {
    const user = await manager.signinRedirectCallback();
    const back = (user.state && typeof user.state === 'string') ? user.state : '#/jobs';
    window.history.replaceState({}, '', `/${back}`);
  }
  let user = await manager.getUser();
  if (!user || user.expired) {
    await manager.signinRedirect({ state: window.location.hash || '#/jobs' });
    return new Promise(() => {}); // the page is leaving
  }
  manager.events.addAccessTokenExpired(() => manager.signinRedirect({ state: window.location.hash }));
  user = await manager.getUser();
  return { secure: true, user: user.profile.preferred_username, admin: (user.profile.realm_access?.roles || []).includes('admin') };
}

export async function signOut() {
  if (manager) await manager.signoutRedirect();
}

/** The headers every call carries. */
export async function authHeaders() {
  if (!manager) return {};
  const user = await manager.getUser();
  return user ? { Authorization: `Bearer ${user.access_token}` } : {};
}
