/**
 * The explorer's entry: asks for the service token, then routes on the URL fragment —
 * `#/` sessions and denials, `#/session/{id}` a session's timeline, `#/receipt/{id}` one receipt
 * checked here. Every view replaces <main> and moves focus to its heading, so keyboard and
 * screen-reader users land on the new content.
 * Owns: routing, sign-in and sign-out. Imports the views.
 */
import { ApiError, token } from './api.js';
import { el } from './dom.js';
import { receiptView } from './views/receipt.js';
import { sessionsView } from './views/sessions.js';
import { sessionView } from './views/session.js';

const main = document.getElementById('main') as HTMLElement;
const find = document.getElementById('find') as HTMLFormElement;
const signOut = document.getElementById('sign-out') as HTMLButtonElement;

function signInView(message?: string): HTMLElement {
  const input = el('input', { id: 'token', type: 'password', autocomplete: 'current-password', required: '' });
  const form = el(
    'form',
    { class: 'sign-in' },
    el('h1', { tabindex: '-1' }, 'Sign in to the audit service'),
    el('p', {}, 'The service token of this `chio serve` (its --service-token). It is kept for this tab only.'),
    message === undefined ? null : el('p', { class: 'error', role: 'alert' }, message),
    el('label', { for: 'token' }, 'Service token'),
    input,
    el('button', { type: 'submit' }, 'Sign in'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    token.set(input.value.trim());
    void render();
  });
  return form;
}

function errorView(e: unknown): HTMLElement {
  const code = e instanceof ApiError ? e.code : 'EXPLORER';
  return el(
    'section',
    {},
    el('h1', { tabindex: '-1' }, 'Cannot show this'),
    el('p', { class: 'error', role: 'alert' }, el('code', {}, code), ' ', (e as Error).message),
  );
}

let rendering = 0;
async function render(): Promise<void> {
  const hash = location.hash === '' ? '#/' : location.hash;
  // Fragments that are not routes (the skip link's #main) leave the page as it is.
  if (!hash.startsWith('#/')) return;
  const mine = ++rendering;
  const signedIn = token.get() !== null;
  find.hidden = !signedIn;
  signOut.hidden = !signedIn;
  let view: HTMLElement;
  if (!signedIn) {
    view = signInView();
  } else {
    const [, route = '', raw] = /^#\/([a-z]*)\/?(.*)$/.exec(hash) ?? [];
    let id = '';
    try {
      id = decodeURIComponent(raw ?? '');
    } catch {
      id = '';
    }
    try {
      view =
        route === 'session' && id !== ''
          ? await sessionView(id)
          : route === 'receipt' && id !== ''
            ? await receiptView(id)
            : await sessionsView();
    } catch (e) {
      view = e instanceof ApiError && e.status === 401 ? signInView('The service refused that token.') : errorView(e);
      find.hidden = token.get() === null;
      signOut.hidden = token.get() === null;
    }
  }
  if (mine !== rendering) return; // a later navigation won
  main.replaceChildren(view);
  (main.querySelector('h1') ?? main).focus();
}

find.addEventListener('submit', (e) => {
  e.preventDefault();
  const id = String(new FormData(find).get('id') ?? '')
    .trim()
    .toLowerCase();
  if (id !== '') location.hash = `#/receipt/${encodeURIComponent(id)}`;
});
signOut.addEventListener('click', () => {
  token.clear();
  location.hash = '#/';
  void render();
});
addEventListener('hashchange', () => void render());
void render();
