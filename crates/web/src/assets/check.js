// Check a text: paste it or choose a file, choose libraries, and read the verdict, the matches
// with their similarity, and the copied passages side by side. A plain-text or HTML file in
// UTF-8 is loaded into the box to be read and edited; any other file (PDF, DOCX, ODT, RTF,
// JATS, text in another encoding) is uploaded as it is and read on the server, never shown as
// text here.

import { api, download, path } from './api.js';
import { badge, emptyState, errorNotice, field, fill, h, heading, htmlToText, loading, number, percent } from './dom.js';
import { renderMarked, reveal, sourceClass } from './highlight.js';
import { errorText, lang, t, tn } from './i18n.js';
import { finding, passageCounts, reportWords } from './report.js';

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
  return bytes >= 1048576 ? t('check.size_mb', { n: (bytes / 1048576).toFixed(1) }) : t('check.size_kb', { n: Math.max(1, Math.round(bytes / 1024)) });
}

// Text handed over by the document page ("Check this text").
export const PREFILL_KEY = 'dupfinder.check.prefill';

export async function checkView(view) {
  fill(view, heading(t('check.title'), t('check.subtitle')));
  const textarea = h('textarea', { id: 'check-text', rows: 12, required: true, spellcheck: 'false', placeholder: t('check.placeholder') });
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
      fileStatus.textContent = t('check.loaded', { name: chosen.name, n: number(Array.from(textarea.value).length) });
      return;
    }
    upload = chosen;
    textarea.value = '';
    fileStatus.textContent = t('check.will_upload', { name: chosen.name, size: sizeLabel(chosen.size) });
  });
  textarea.addEventListener('input', () => {
    if (upload && textarea.value.trim()) {
      upload = null;
      file.value = '';
      fileStatus.textContent = '';
    }
  });
  const libraryBox = h('fieldset', { class: 'libraries-choice' }, h('legend', {}, t('check.libraries')), loading());
  const submit = h('button', { type: 'submit', class: 'primary' }, t('check.submit'));
  const results = h('section', { id: 'check-results', 'aria-label': t('check.results') });
  const form = h('form', { class: 'panel check-form', novalidate: true },
    field(t('check.text'), textarea),
    h('div', { class: 'form-row' },
      field(t('check.file'), file),
      libraryBox),
    fileStatus,
    h('div', { class: 'actions' }, submit));
  view.append(form, results);

  let libraries = [];
  let allLibraries = 0;
  try {
    // The first page of the largest size; with every box ticked the check goes to every
    // library, those beyond the page too.
    const page = await api('/api/v1/libraries?limit=1000');
    libraries = page.libraries;
    allLibraries = page.total;
    if (libraries.length === 0) {
      fill(libraryBox, h('legend', {}, t('check.libraries')),
        h('p', { class: 'muted' }, t('check.no_libraries'), h('a', { href: '#/libraries' }, t('check.add_one')), t('check.first')));
    } else {
      fill(libraryBox, h('legend', {}, t('check.libraries')),
        ...libraries.map((lib) => h('label', { class: 'check' },
          h('input', { type: 'checkbox', name: 'library', value: lib.id, checked: true }),
          ` ${lib.name} `, h('span', { class: 'muted' }, `(${tn('unit.documents', lib.documents)})`))),
        allLibraries > libraries.length
          ? h('p', { class: 'muted small' }, t('check.more_libraries', { shown: libraries.length, total: allLibraries }))
          : null);
    }
  } catch (error) {
    fill(libraryBox, h('legend', {}, t('check.libraries')), errorNotice(error));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const text = textarea.value;
    if (!upload && !text.trim()) {
      fill(results, errorNotice({ message: t('check.no_text') }));
      textarea.focus();
      return;
    }
    const chosen = [...form.querySelectorAll('input[name=library]:checked')].map((i) => i.value);
    if (libraries.length > 0 && chosen.length === 0) {
      fill(results, errorNotice({ message: t('check.choose_library') }));
      return;
    }
    submit.disabled = true;
    fill(results, loading(t('check.checking')));
    try {
      const options = { passages: true };
      // Every box ticked: every library (no list to send, however many there are).
      if (libraries.length > 0 && chosen.length < libraries.length) options.libraries = chosen;
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

// The report the check was kept as: a link to its page, and its PDF in the interface's language.
function reportLinks(id) {
  const status = h('span', { class: 'muted small', role: 'status' });
  const pdf = h('button', { type: 'button' }, t('report.download_pdf'));
  pdf.addEventListener('click', async () => {
    pdf.disabled = true;
    status.textContent = '';
    const language = lang();
    try {
      await download(`/api/v1/reports/${path(id)}/pdf?lang=${language}`, `dupfinder-report-${id}-${language}.pdf`);
    } catch (error) {
      status.textContent = errorText(error);
    } finally {
      pdf.disabled = false;
    }
  });
  return h('p', { class: 'report-links' },
    h('a', { class: 'button primary', id: 'open-report', href: `#/reports/${path(id)}` }, t('check.open_report')), ' ',
    pdf, ' ', h('span', { class: 'muted small' }, t('check.report_kept', { id })), ' ', status);
}

async function showReport(results, text, report) {
  const title = h('h2', { tabindex: -1, class: 'verdict-title' }, t('check.verdict'), ' ', badge(report.verdict, t(`verdict.${report.verdict}`)));
  const summary = h('div', { class: `verdict verdict-${report.verdict}` },
    title,
    h('p', {}, t(`check.verdict_${report.verdict}`)),
    report.document ? h('p', { class: 'muted checked-file' },
      t('check.checked_file', { name: report.document.name, format: report.document.format.toUpperCase() }),
      report.document.pages ? `, ${tn('unit.pages', report.document.pages)}` : '') : null,
    h('p', { class: 'index-line' },
      h('strong', { id: 'check-index' }, t('check.index_line', { index: percent(report.similarity_index ?? 0, 1) })),
      h('span', { class: 'muted' }, ' · ', h('span', { id: 'check-words' }, t('reports.words', { n: number(reportWords(report)) })),
        ` · ${tn('unit.matches', report.matches.length)}`)),
    report.report_id ? reportLinks(report.report_id) : h('p', { class: 'muted small' }, t('check.not_kept')));
  fill(results, summary);
  if (report.matches.length === 0) {
    results.append(emptyState(t('check.no_copies'), h('p', {}, t('check.no_copies_hint'))));
    return;
  }
  const matches = report.matches.map((m, i) => ({ ...m, index: i }));
  const compare = h('section', { class: 'compare', 'aria-label': t('report.manuscript_title') });
  const table = h('table', { class: 'data matches' },
    h('caption', {}, t('report.sources_caption')),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, t('report.source')),
      h('th', { scope: 'col', class: 'num' }, t('report.share')),
      h('th', { scope: 'col' }, t('report.finding')),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, t('report.compare'))))),
    h('tbody', {}, matches.map((m) => h('tr', { dataset: { match: m.index } },
      h('td', { 'data-label': t('report.source') },
        h('span', { class: `source-number ${sourceClass(m.index)}` }, m.index + 1), ' ',
        h('a', { href: `#/libraries/${path(m.library)}/documents/${path(m.doc_id)}` }, m.title || m.doc_id),
        h('div', { class: 'muted small' }, `${m.library} · ${m.doc_id}`)),
      h('td', { class: 'num', 'data-label': t('report.share') }, percent(m.share || 0, 1)),
      h('td', { 'data-label': t('report.finding') }, finding(m)),
      h('td', {}, h('button', { type: 'button', class: 'small', onclick: () => select(m.index, true) }, t('report.compare')))))));
  results.append(h('div', { class: 'table-wrap' }, table), compare);

  const legend = h('ul', { class: 'legend', 'aria-label': t('report.legend') },
    matches.map((m) => h('li', {}, h('span', { class: `swatch ${sourceClass(m.index)}`, 'aria-hidden': 'true' }), `${m.index + 1}. ${m.title || m.doc_id}`)));
  const left = h('div', { class: 'pane-text', id: 'pane-query', tabindex: 0, 'aria-label': t('report.manuscript') });
  const right = h('div', { class: 'pane-text', id: 'pane-source', tabindex: 0, 'aria-label': t('report.source_text') });
  const rightTitle = h('h3', {});
  fill(compare, h('h2', {}, t('report.manuscript_title')),
    h('p', { class: 'hint' }, t('report.manuscript_hint')),
    legend,
    h('div', { class: 'panes' },
      h('div', { class: 'pane' }, h('h3', {}, t('report.manuscript')), left),
      h('div', { class: 'pane' }, rightTitle, right)));

  const querySpans = [];
  for (const m of matches) {
    (m.passages || []).forEach((p, j) => querySpans.push({
      start: p.query.start, end: p.query.end, source: m.index, key: `${m.index}-${j}`, kind: p.kind,
      muted: m.counted === false || !passageCounts(p.kind, report.exclusions || {}),
      label: t('report.passage_label', { kind: t(p.translated ? 'kind.translated' : `kind.${p.kind || 'copied'}`), n: m.index + 1, source: m.title || m.doc_id }),
    }));
  }
  let selected = -1;
  const sourceTexts = new Map();
  renderMarked(left, text, querySpans, (span) => activate(span.key));

  async function select(index, scroll) {
    selected = index;
    const m = matches[index];
    table.querySelectorAll('tbody tr').forEach((tr) => tr.classList.toggle('selected', Number(tr.dataset.match) === index));
    fill(rightTitle, h('span', { class: `swatch ${sourceClass(index)}`, 'aria-hidden': 'true' }), `${index + 1}. ${m.title || m.doc_id}`);
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
      start: p.doc.start, end: p.doc.end, source: index, key: `${index}-${j}`, kind: p.kind,
      label: t('report.source_passage_label', { kind: t(p.translated ? 'kind.translated' : `kind.${p.kind || 'copied'}`) }),
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
