// The UI's entry: routes the URL fragment to a view, keeps the access token and the language.

import { setToken, token } from './api.js';
import { batchView } from './batch.js';
import { LANGUAGES, lang, setLang, t, translatePage } from './i18n.js';
import { reportView } from './report.js';
import { reportsView } from './reports.js';
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
  // The language is the page's, not the view's (see `languageFromAddress`).
  params.delete('lang');
  if (parts.length === 0 || (parts[0] === 'libraries' && parts.length === 1)) {
    return { nav: 'libraries', title: t('nav.libraries'), show: () => librariesView(view, params) };
  }
  if (parts[0] === 'libraries' && parts.length === 2) {
    return { nav: 'libraries', title: parts[1], show: () => libraryView(view, parts[1], params) };
  }
  if (parts[0] === 'libraries' && parts[2] === 'duplicates' && parts.length === 3) {
    return { nav: 'libraries', title: t('duplicates.title', { library: parts[1] }), show: () => duplicatesView(view, parts[1], params) };
  }
  if (parts[0] === 'libraries' && parts[2] === 'documents' && parts.length >= 4) {
    return { nav: 'libraries', title: t('document.title'), show: () => documentView(view, parts[1], parts.slice(3).join('/')) };
  }
  if (parts[0] === 'check') return { nav: 'check', title: t('check.title'), show: () => checkView(view) };
  if (parts[0] === 'batch') return { nav: 'batch', title: t('batch.title'), show: (signal) => batchView(view, signal) };
  if (parts[0] === 'reports' && parts.length === 1) return { nav: 'reports', title: t('reports.title'), show: () => reportsView(view, params) };
  if (parts[0] === 'reports' && parts.length === 2) return { nav: 'reports', title: t('report.kicker'), show: () => reportView(view, parts[1], params) };
  if (parts[0] === 'queue') return { nav: 'queue', title: t('queue.title'), show: (signal) => queueView(view, signal) };
  return { nav: '', title: '404', show: () => fill(view, errorNotice({ message: t('app.not_found', { page: location.hash }) })) };
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
  const label = () => { button.textContent = token() ? t('token.button_set') : t('token.button'); };
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

// The language switch: the choice is kept in this browser and the page is drawn again in it.
function setUpLanguage() {
  const select = document.getElementById('language');
  select.replaceChildren(...LANGUAGES.map((code) => {
    const option = document.createElement('option');
    option.value = code;
    option.textContent = code === 'ru' ? 'Русский' : 'English';
    option.lang = code;
    option.selected = code === lang();
    return option;
  }));
  select.addEventListener('change', () => {
    setLang(select.value);
    showLanguageInAddress();
    translatePage();
    document.getElementById('token-button').textContent = token() ? t('token.button_set') : t('token.button');
    render();
  });
}

// `?lang=ru` in the address (before the fragment, or in the fragment's query) chooses the
// language, so a link opens in the language it was sent in; the address then keeps the
// language shown.
function languageFromAddress() {
  const inFragment = new URLSearchParams(location.hash.split('?')[1] || '').get('lang');
  const asked = new URLSearchParams(location.search).get('lang') || inFragment;
  if (LANGUAGES.includes(asked)) setLang(asked);
}

function showLanguageInAddress() {
  const url = new URL(location.href);
  if (url.searchParams.get('lang') === lang()) return;
  url.searchParams.set('lang', lang());
  history.replaceState(history.state, '', url);
}

window.addEventListener('hashchange', () => {
  render().then(() => view.focus({ preventScroll: true }));
  window.scrollTo(0, 0);
});
languageFromAddress();
showLanguageInAddress();
translatePage();
setUpLanguage();
setUpToken();
render();
