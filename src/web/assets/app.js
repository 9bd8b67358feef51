// The UI's entry: routes the URL fragment to a view, and keeps the access token.

import { setToken, token } from './api.js';
import { batchView } from './batch.js';
import { checkView } from './check.js';
import { documentView } from './document.js';
import { duplicatesView } from './duplicates.js';
import { errorNotice, fill } from './dom.js';
import { librariesView } from './libraries.js';
import { libraryView } from './library.js';
import { queueView } from './queue.js';

const view = document.getElementById('view');
// Aborted when the view changes, so polling and pending requests stop.
let leaving = new AbortController();

// `#/libraries/acl/documents/some%2Fid?x=1` → the view and its arguments.
function route() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [pathPart, query = ''] = hash.split('?');
  const parts = pathPart.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  if (parts.length === 0 || (parts[0] === 'libraries' && parts.length === 1)) {
    return { nav: 'libraries', title: 'Libraries', show: () => librariesView(view) };
  }
  if (parts[0] === 'libraries' && parts.length === 2) {
    return { nav: 'libraries', title: parts[1], show: () => libraryView(view, parts[1], params) };
  }
  if (parts[0] === 'libraries' && parts[2] === 'duplicates' && parts.length === 3) {
    return { nav: 'libraries', title: `Duplicates in ${parts[1]}`, show: () => duplicatesView(view, parts[1], params) };
  }
  if (parts[0] === 'libraries' && parts[2] === 'documents' && parts.length >= 4) {
    return { nav: 'libraries', title: 'Document', show: () => documentView(view, parts[1], parts.slice(3).join('/')) };
  }
  if (parts[0] === 'check') return { nav: 'check', title: 'Check a text', show: () => checkView(view) };
  if (parts[0] === 'batch') return { nav: 'batch', title: 'Check many files', show: (signal) => batchView(view, signal) };
  if (parts[0] === 'queue') return { nav: 'queue', title: 'Crawl queue', show: (signal) => queueView(view, signal) };
  return { nav: '', title: 'Not found', show: () => fill(view, errorNotice({ message: `There is no page “${location.hash}”.` })) };
}

async function render() {
  leaving.abort();
  leaving = new AbortController();
  const current = route();
  document.title = `${current.title} — dupfinder`;
  document.querySelectorAll('[data-nav]').forEach((a) => {
    if (a.dataset.nav === current.nav) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  });
  try {
    await current.show(leaving.signal);
  } catch (error) {
    fill(view, errorNotice(error));
  }
}

function setUpToken() {
  const dialog = document.getElementById('token-dialog');
  const input = document.getElementById('token-input');
  const button = document.getElementById('token-button');
  const label = () => { button.textContent = token() ? 'Access token ✓' : 'Access token'; };
  label();
  button.addEventListener('click', () => {
    input.value = token();
    dialog.showModal();
    input.focus();
  });
  dialog.addEventListener('close', () => {
    if (dialog.returnValue === 'save') setToken(input.value.trim());
    if (dialog.returnValue === 'clear') setToken('');
    label();
    if (dialog.returnValue === 'save' || dialog.returnValue === 'clear') render();
  });
}

window.addEventListener('hashchange', () => {
  render().then(() => view.focus({ preventScroll: true }));
  window.scrollTo(0, 0);
});
setUpToken();
render();
