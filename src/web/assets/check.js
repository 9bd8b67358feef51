// Check a text: paste it or choose a file, choose libraries, and read the verdict, the matches
// with their similarity, and the copied passages side by side. A plain-text or HTML file in
// UTF-8 is loaded into the box to be read and edited; any other file (PDF, DOCX, ODT, RTF,
// JATS, text in another encoding) is uploaded as it is and read on the server, never shown as
// text here.

import { api, download, path } from './api.js';
import { badge, emptyState, errorNotice, field, fill, h, heading, htmlToText, loading, number, percent } from './dom.js';
import { renderMarked, reveal, sourceClass } from './highlight.js';

const VERDICTS = {
  duplicate: 'Duplicate — the text, or most of it, is already in the library.',
  partial: 'Partial copy — passages of the text are found in the library.',
  original: 'Original — nothing in the checked libraries matches this text.',
};

// The files the server reads, for the file chooser.
const ACCEPTED = [
  '.pdf', '.docx', '.odt', '.rtf', '.html', '.htm', '.xhtml', '.xml', '.txt', '.text', '.md',
  'application/pdf', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.oasis.opendocument.text', 'application/rtf', 'text/rtf', 'text/plain',
  'text/html', 'application/xhtml+xml', 'application/xml', 'text/xml',
].join(',');

// The text of a chosen file when it is plain text or HTML in UTF-8, else null (the file is then
// uploaded and read on the server).
function readableText(chosen, bytes) {
  const textual = /\.(txt|text|md|html?)$/i.test(chosen.name) || ['text/plain', 'text/html'].includes(chosen.type);
  if (!textual || bytes.includes(0)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function sizeLabel(bytes) {
  return bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

// Text handed over by the document page ("Check this text").
export const PREFILL_KEY = 'dupfinder.check.prefill';

export async function checkView(view) {
  fill(view, heading('Check a text', 'Paste a manuscript or choose a file (PDF, DOCX, ODT, RTF, HTML, JATS XML, text); dupfinder compares it with the libraries and shows what was copied.'));
  const textarea = h('textarea', { id: 'check-text', rows: 12, required: true, spellcheck: 'false', placeholder: 'Paste the text of a manuscript, an abstract or a thesis chapter…' });
  const prefill = sessionStorage.getItem(PREFILL_KEY);
  if (prefill) {
    textarea.value = prefill;
    sessionStorage.removeItem(PREFILL_KEY);
  }
  const file = h('input', { id: 'check-file', type: 'file', accept: ACCEPTED });
  const fileStatus = h('p', { class: 'hint', role: 'status' });
  // The file to upload, when the chosen one is not loaded into the box.
  let upload = null;
  file.addEventListener('change', async () => {
    const chosen = file.files[0];
    upload = null;
    if (!chosen) return;
    const bytes = new Uint8Array(await chosen.arrayBuffer());
    const raw = readableText(chosen, bytes);
    if (raw !== null) {
      textarea.value = /\.html?$/i.test(chosen.name) || chosen.type === 'text/html' ? htmlToText(raw) : raw;
      fileStatus.textContent = `Loaded ${chosen.name} (${number(Array.from(textarea.value).length)} characters).`;
      return;
    }
    upload = chosen;
    textarea.value = '';
    fileStatus.textContent = `${chosen.name} (${sizeLabel(chosen.size)}) will be uploaded and read on the server. Type or paste in the box to check a text instead.`;
  });
  textarea.addEventListener('input', () => {
    if (upload && textarea.value.trim()) {
      upload = null;
      file.value = '';
      fileStatus.textContent = '';
    }
  });
  const libraryBox = h('fieldset', { class: 'libraries-choice' }, h('legend', {}, 'Libraries to check against'), loading());
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Check');
  const results = h('section', { id: 'check-results', 'aria-label': 'Check results' });
  const form = h('form', { class: 'panel check-form', novalidate: true },
    field('Text to check', textarea),
    h('div', { class: 'form-row' },
      field('…or choose a file (PDF, DOCX, ODT, RTF, HTML, JATS XML, text)', file),
      libraryBox),
    fileStatus,
    h('div', { class: 'actions' }, submit));
  view.append(form, results);

  let libraries = [];
  try {
    libraries = (await api('/api/v1/libraries')).libraries;
    if (libraries.length === 0) {
      fill(libraryBox, h('legend', {}, 'Libraries to check against'),
        h('p', { class: 'muted' }, 'No libraries yet — ', h('a', { href: '#/libraries' }, 'add one'), ' first.'));
    } else {
      fill(libraryBox, h('legend', {}, 'Libraries to check against'),
        ...libraries.map((lib) => h('label', { class: 'check' },
          h('input', { type: 'checkbox', name: 'library', value: lib.id, checked: true }),
          ` ${lib.name} `, h('span', { class: 'muted' }, `(${number(lib.documents)} documents)`))));
    }
  } catch (error) {
    fill(libraryBox, h('legend', {}, 'Libraries to check against'), errorNotice(error));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = textarea.value;
    if (!upload && !text.trim()) {
      fill(results, errorNotice({ message: 'There is no text to check: paste some or choose a file.' }));
      textarea.focus();
      return;
    }
    const chosen = [...form.querySelectorAll('input[name=library]:checked')].map((i) => i.value);
    if (libraries.length > 0 && chosen.length === 0) {
      fill(results, errorNotice({ message: 'Choose at least one library.' }));
      return;
    }
    submit.disabled = true;
    fill(results, loading('Checking…'));
    try {
      const options = { passages: true };
      if (libraries.length > 0) options.libraries = chosen;
      let report;
      if (upload) {
        const form = new FormData();
        form.append('file', upload, upload.name);
        form.append('options', JSON.stringify(options));
        report = await api('/api/v1/check', { method: 'POST', form });
      } else {
        report = await api('/api/v1/check', { method: 'POST', body: { text, ...options } });
      }
      // A file's passages refer to the text the server extracted from it.
      await showReport(results, report.text ?? text, report);
      results.querySelector('h2')?.focus();
    } catch (error) {
      fill(results, errorNotice(error));
    } finally {
      submit.disabled = false;
    }
  });
}

// The stored report's id and its PDF, in English or Russian.
function reportLinks(id) {
  const status = h('span', { class: 'muted small', role: 'status' });
  const pdf = (lang, label) => {
    const button = h('button', { type: 'button' }, label);
    button.addEventListener('click', async () => {
      button.disabled = true;
      status.textContent = '';
      try {
        await download(`/api/v1/reports/${path(id)}/pdf?lang=${lang}`, `dupfinder-report-${id}-${lang}.pdf`);
      } catch (error) {
        status.textContent = error.message;
      } finally {
        button.disabled = false;
      }
    });
    return button;
  };
  return h('p', { class: 'report-links' },
    h('span', { class: 'muted' }, `Kept as report ${id} · `),
    pdf('en', 'PDF report'), ' ', pdf('ru', 'PDF (русский)'), ' ', status);
}

async function showReport(results, text, report) {
  const title = h('h2', { tabindex: -1, class: 'verdict-title' }, 'Verdict: ', badge(report.verdict, report.verdict));
  const summary = h('div', { class: `verdict verdict-${report.verdict}` },
    title,
    h('p', {}, VERDICTS[report.verdict]),
    report.document ? h('p', { class: 'muted checked-file' },
      `Checked file: ${report.document.name} — ${report.document.format.toUpperCase()}`,
      report.document.pages ? `, ${number(report.document.pages)} page${report.document.pages === 1 ? '' : 's'}` : '',
      `, ${number(report.document.words)} words`) : null,
    h('p', { class: 'muted' },
      `${number(report.matches.length)} matching document${report.matches.length === 1 ? '' : 's'}`,
      report.matches.length ? ` · ${percent(report.query_coverage)} of the text lies in copied passages` : '',
      ` · answered in ${report.took_ms.toFixed(1)} ms`),
    report.report_id ? reportLinks(report.report_id) : null);
  fill(results, summary);
  if (report.matches.length === 0) {
    results.append(emptyState('No copied passages found.', h('p', {}, 'Try other libraries, or check a longer part of the text.')));
    return;
  }
  const matches = report.matches.map((m, i) => ({ ...m, index: i }));
  const compare = h('section', { class: 'compare', 'aria-label': 'Side-by-side comparison' });
  const table = h('table', { class: 'data matches' },
    h('caption', {}, 'Matching documents, most similar first. Choose one to compare it side by side.'),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Source'), h('th', { scope: 'col' }, 'Verdict'),
      h('th', { scope: 'col', class: 'num' }, 'Similarity'), h('th', { scope: 'col', class: 'num' }, 'Of the text'),
      h('th', { scope: 'col', class: 'num' }, 'Of the source'), h('th', { scope: 'col' }, 'Found by'),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Compare')))),
    h('tbody', {}, matches.map((m) => h('tr', { dataset: { match: m.index } },
      h('td', { 'data-label': 'Source' },
        h('span', { class: `swatch ${sourceClass(m.index)}`, 'aria-hidden': 'true' }),
        h('a', { href: `#/libraries/${path(m.library)}/documents/${path(m.doc_id)}` }, m.title || m.doc_id),
        h('div', { class: 'muted small' }, `${m.library} · ${m.doc_id}`)),
      h('td', { 'data-label': 'Verdict' }, badge(m.verdict)),
      h('td', { class: 'num', 'data-label': 'Similarity' }, percent(Math.max(m.resemblance, m.containment_query, m.containment_doc))),
      h('td', { class: 'num', 'data-label': 'Of the text' }, percent(m.containment_query)),
      h('td', { class: 'num', 'data-label': 'Of the source' }, percent(m.containment_doc)),
      h('td', { 'data-label': 'Found by' }, m.methods.join(', ')),
      h('td', {}, h('button', { type: 'button', class: 'small', onclick: () => select(m.index, true) }, 'Compare'))))));
  results.append(h('div', { class: 'table-wrap' }, table), compare);

  const legend = h('ul', { class: 'legend', 'aria-label': 'Colour of each source' },
    matches.map((m) => h('li', {}, h('span', { class: `swatch ${sourceClass(m.index)}`, 'aria-hidden': 'true' }), m.title || m.doc_id)));
  const left = h('div', { class: 'pane-text', id: 'pane-query', tabindex: 0, 'aria-label': 'The checked text' });
  const right = h('div', { class: 'pane-text', id: 'pane-source', tabindex: 0, 'aria-label': 'The matched document' });
  const rightTitle = h('h3', {});
  fill(compare, h('h2', {}, 'Copied passages'),
    h('p', { class: 'hint' }, 'Each colour is one source. Select a highlighted passage to see it in both texts.'),
    legend,
    h('div', { class: 'panes' },
      h('div', { class: 'pane' }, h('h3', {}, 'Checked text'), left),
      h('div', { class: 'pane' }, rightTitle, right)));

  const querySpans = [];
  for (const m of matches) {
    (m.passages || []).forEach((p, j) => querySpans.push({
      start: p.query.start, end: p.query.end, source: m.index, key: `${m.index}-${j}`,
      label: `Passage copied from ${m.title || m.doc_id}`,
    }));
  }
  let selected = -1;
  const sourceTexts = new Map();
  renderMarked(left, text, querySpans, (span) => activate(span.key));

  async function select(index, scroll) {
    selected = index;
    const m = matches[index];
    table.querySelectorAll('tbody tr').forEach((tr) => tr.classList.toggle('selected', Number(tr.dataset.match) === index));
    fill(rightTitle, h('span', { class: `swatch ${sourceClass(index)}`, 'aria-hidden': 'true' }), m.title || m.doc_id);
    if (!sourceTexts.has(index)) {
      fill(right, loading());
      try {
        const doc = await api(`/api/v1/libraries/${path(m.library)}/documents/${path(m.doc_id)}`);
        sourceTexts.set(index, doc.text);
      } catch (error) {
        fill(right, errorNotice(error));
        return;
      }
    }
    const spans = (m.passages || []).map((p, j) => ({
      start: p.doc.start, end: p.doc.end, source: index, key: `${index}-${j}`,
      label: `Passage also in the checked text`,
    }));
    renderMarked(right, sourceTexts.get(index), spans, (span) => activate(span.key));
    if (scroll && spans.length) activate(spans[0].key);
    if (scroll) compare.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  async function activate(key) {
    const index = Number(key.split('-')[0]);
    if (index !== selected) await select(index, false);
    reveal(left, key);
    reveal(right, key);
  }

  await select(0, false);
}
