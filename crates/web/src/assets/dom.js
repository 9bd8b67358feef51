// Small helpers to build the views: elements, formatting, notices and status badges.

import { errorText, locale, t } from './i18n.js';

// Creates an element: h('a', { href: '#/' , class: 'x', onclick: fn }, 'text', child…).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'class') {
      el.className = value;
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, '');
    } else {
      el.setAttribute(key, value);
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

// Replaces an element's content.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function number(n) {
  return n === null || n === undefined ? '—' : new Intl.NumberFormat(locale()).format(n);
}

// A share (0..1) as a percentage in the interface's language ("42.5 %", "42,5 %").
export function percent(x, digits = 0) {
  if (x === null || x === undefined) return '—';
  const value = new Intl.NumberFormat(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x * 100);
  return `${value}\u00a0%`;
}

// A Unix time (seconds) as a readable date and time.
export function date(seconds) {
  if (!seconds) return '—';
  const d = new Date(seconds * 1000);
  return d.toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
}

// A <time> element for a Unix time.
export function time(seconds) {
  if (!seconds) return h('span', { class: 'muted' }, t('common.never'));
  return h('time', { datetime: new Date(seconds * 1000).toISOString() }, date(seconds));
}

const BADGES = {
  ready: 'good', done: 'good', original: 'good',
  empty: 'neutral', queued: 'neutral', stopped: 'neutral',
  discovering: 'busy', analyzing: 'busy', crawling: 'busy', signing: 'busy',
  partial: 'warn', paused: 'warn', failed: 'bad', duplicate: 'bad',
};

export function badge(status, label) {
  return h('span', { class: `badge badge-${BADGES[status] || 'neutral'}` }, label || t(`status.${status}`, {}, status));
}

// A notice for an API error: our own words for a code we know (else the server's message),
// and the code.
export function errorNotice(error, retry) {
  const box = h('div', { class: 'notice error', role: 'alert' },
    error.status === 401 ? h('strong', {}, `${t('common.token_needed')} `)
      : error.status >= 400 && error.status < 500 ? null
        : error.status === undefined ? null
          : h('strong', {}, `${t('common.went_wrong')} `),
    errorText(error),
    error.code ? h('span', { class: 'code' }, ` (${error.code})`) : null);
  if (error.status === 401) {
    box.append(' ', h('button', { type: 'button', class: 'link', onclick: () => document.getElementById('token-button').click() }, t('common.enter_token')));
  }
  if (retry) box.append(' ', h('button', { type: 'button', class: 'link', onclick: retry }, t('common.try_again')));
  return box;
}

export function emptyState(title, ...body) {
  return h('div', { class: 'empty' }, h('p', { class: 'empty-title' }, title), ...body);
}

export function loading(label = t('common.loading')) {
  return h('p', { class: 'loading', role: 'status' }, label);
}

// A page heading with an optional line under it.
export function heading(title, subtitle) {
  return h('div', { class: 'page-head' }, h('h1', {}, title), subtitle ? h('p', { class: 'subtitle' }, subtitle) : null);
}

// A labelled form field.
export function field(label, input, hint) {
  const id = input.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  input.id = id;
  const hintEl = hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hintEl);
}

// Reads a chosen file as text.
export function readFile(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}

// The readable text of an HTML page.
export function htmlToText(html) {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  doc.querySelectorAll('script, style, noscript, nav, header, footer, template').forEach((n) => n.remove());
  const blocks = [];
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) blocks.push(child.textContent);
      else if (child.nodeType === Node.ELEMENT_NODE) {
        const block = /^(P|DIV|H[1-6]|LI|BR|TR|SECTION|ARTICLE|BLOCKQUOTE|PRE)$/.test(child.tagName);
        if (block) blocks.push('\n');
        walk(child);
        if (block) blocks.push('\n');
      }
    }
  };
  walk(doc.body || doc.documentElement);
  return blocks.join('').replace(/[ \t\u00a0]+/g, ' ').replace(/\s*\n\s*/g, '\n\n').replace(/\n{3,}/g, '\n\n').trim();
}
