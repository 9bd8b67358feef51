// End-to-end tests of the web UI: the real `dupfinder serve` on a free loopback port with a
// temporary data directory, driven in headless Chromium. Every page is saved as a screenshot
// (desktop and phone) in tests/browser/artifacts/.
//
// Run: `npm ci && npm test` in tests/browser after `cargo build` (or set DUPFINDER_BIN).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { createServer } from 'node:http';

import { documents, htmlPage, manuscript, sitePage, twins, typed } from './fixtures.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const binary = process.env.DUPFINDER_BIN || resolve(here, '../../target/debug/dupfinder');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const artifacts = join(here, 'artifacts');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let server;
let base;
let site;
let siteUrl;
let context;
let page;
const scratch = mkdtempSync(join(tmpdir(), 'dupfinder-ui-'));
const pageErrors = [];

// Starts the server and resolves with its address, read from its "listening on" line.
function startServer() {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(binary, ['--data-dir', join(scratch, 'data'), 'serve', '--listen', '127.0.0.1:0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      // The crawl test's site is on loopback.
      env: { ...process.env, RUST_LOG: 'warn', DUPFINDER_CRAWL_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${stderr}`)), 30_000);
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      // The whole address: a chunk of output may end inside it ("http://127").
      const found = /listening on (http:\/\/[\d.]+:\d+)\s/.exec(stderr);
      if (found) {
        clearTimeout(timer);
        resolvePromise({ child, url: found[1] });
      }
    });
    child.on('exit', (code) => reject(new Error(`the server exited with ${code}:\n${stderr}`)));
  });
}

async function shoot(name) {
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
}

// Screenshots of the current page at desktop and phone widths.
async function shootBoth(name) {
  await shoot(`${name}-desktop`);
  await page.setViewportSize(PHONE);
  await shoot(`${name}-phone`);
  // Nothing is wider than a phone's screen: no table header or label runs past its edge.
  const wide = await page.evaluate(() => [...document.querySelectorAll('main *')]
    .filter((el) => el.getClientRects().length && !el.closest('thead, .visually-hidden'))
    .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
    .map((el) => `${el.tagName.toLowerCase()}.${el.className} “${el.textContent.trim().slice(0, 30)}”`));
  assert.deepEqual(wide.slice(0, 5), [], `${name}: wider than ${PHONE.width} px`);
  await page.setViewportSize(DESKTOP);
}

// Serves the fixture site on a free loopback port.
function startSite() {
  return new Promise((resolvePromise) => {
    const http = createServer((request, response) => {
      const body = sitePage(new URL(request.url, 'http://x').pathname);
      response.writeHead(body ? 200 : 404, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(body || 'not found');
    });
    http.listen(0, '127.0.0.1', () => resolvePromise(http));
  });
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  site = await startSite();
  siteUrl = `http://127.0.0.1:${site.address().port}/`;
  const started = await startServer();
  server = started.child;
  base = started.url;
  context = await chromium.launchPersistentContext(join(scratch, 'chromium'), {
    executablePath: chromiumPath,
    headless: true,
    viewport: DESKTOP,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  page = context.pages()[0] || (await context.newPage());
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) pageErrors.push(message.text());
  });
});

after(async () => {
  await context?.close();
  server?.kill('SIGTERM');
  site?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the web UI', () => {
  it('shows the empty state, then creates a library', async () => {
    await page.goto(`${base}/`);
    // In CI the first page of a just-started browser has twice stayed without the libraries'
    // answer (the server answered other clients meanwhile): say what the page shows, then load
    // it once more. Every later step keeps the 10 s default.
    try {
      await page.getByText('No libraries yet').waitFor({ timeout: 20_000 });
    } catch (error) {
      const shown = (await page.textContent('body').catch(() => '')).replace(/\s+/g, ' ').slice(0, 400);
      console.log(`# first page not ready at ${page.url()}: ${error.message.split('\n')[0]}; it shows: ${shown}`);
      await page.reload();
      await page.getByText('No libraries yet').waitFor({ timeout: 20_000 });
    }
    await shootBoth('01-libraries-empty');

    await page.getByLabel('Identifier').fill('Bad Id');
    await page.getByLabel('Name', { exact: true }).fill('Demo journal');
    await page.getByRole('button', { name: 'Add library' }).click();
    // The browser refuses the pattern; the server refuses what gets past it.
    assert.equal(await page.locator('#view input[name=id]').evaluate((i) => i.validity.valid), false);
    await page.getByLabel('Identifier').fill('demo');
    await page.getByRole('button', { name: 'Add library' }).click();
    await page.getByRole('heading', { level: 1, name: 'Demo journal' }).waitFor();
    await page.getByText('This library has no documents yet').waitFor();
    assert.match(page.url(), /#\/libraries\/demo$/);
  });

  it('imports documents from a JSON Lines file and from the form', async () => {
    const lines = documents.map((d) => JSON.stringify(d)).join('\n') + '\n';
    await page.setInputFiles('#import-file', { name: 'demo.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines) });
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await page.getByText(`${documents.length} documents added.`).waitFor();

    await page.getByText('Type or paste one document').click();
    await page.getByLabel('Title').fill(typed.title);
    await page.getByLabel('Authors').fill(typed.authors);
    await page.getByLabel('Year').fill(typed.year);
    await page.getByLabel('Text', { exact: true }).fill(typed.text);
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.getByText('1 document added.').waitFor();

    const total = documents.length + 1;
    await page.getByRole('heading', { name: `All ${total} documents` }).waitFor();
    assert.equal(await page.locator('table.documents tbody tr').count(), total);
    // The statistics show the documents.
    assert.equal(await page.locator('.stat', { hasText: 'Documents' }).locator('dd').textContent(), String(total));
    await shootBoth('02-library-listing');

    // Sorting by title puts the titles in alphabetical order.
    await page.getByRole('link', { name: 'Title' }).click();
    await page.locator('th[aria-sort=ascending]', { hasText: 'Title' }).waitFor();
    const titles = await page.locator('table.documents tbody tr td:first-child a').allTextContents();
    assert.deepEqual(titles, [...titles].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    assert.equal(titles[0], 'Atmospheric stability and wake losses in a large offshore wind farm');

    // Re-indexing from the page: the job's outcome shows, then the new statistics generation.
    const generation = await page.locator('.stat', { hasText: 'Index version' }).locator('dd').textContent();
    await page.getByRole('button', { name: 'Re-index' }).click();
    await page.getByText(/Re-indexed: the library’s statistics were counted again \(index version \d+\)\./).waitFor();
    await shoot('02-library-reindexed-desktop');
    const next = String(Number(generation) + 1);
    await page.locator('.stat', { hasText: 'Index version' }).locator('dd', { hasText: next }).waitFor();
  });

  it('searches with words, phrases and field filters', async () => {
    await page.getByLabel('Search this library').fill('glaciers melt');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: '1 document matches' }).waitFor();
    const hit = page.locator('.hit').first();
    assert.equal(await hit.locator('h3').textContent(), documents[0].title);
    assert.ok((await hit.locator('.snippet b').count()) >= 2, 'matched words are marked');
    await shootBoth('03-search-results');

    await page.getByLabel('Search this library').fill('author:okafor');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: '2 documents match' }).waitFor();

    await page.getByLabel('Search this library').fill('"letter spacing" year:2015..2018');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('heading', { name: '1 document matches' }).waitFor();

    await page.getByLabel('Search this library').fill('cooling year:1990');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('Nothing matches').waitFor();
    await shoot('04-search-nothing-desktop');

    await page.getByLabel('Search this library').fill('year:recent');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('alert').getByText('invalid_query').waitFor();
    await shoot('05-search-error-desktop');
  });

  it('opens a document', async () => {
    await page.getByLabel('Search this library').fill('title:honeybees');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: documents[3].title }).click();
    await page.getByRole('heading', { level: 1, name: documents[3].title }).waitFor();
    await page.getByText('Lucia Ferrante').waitFor();
    assert.equal((await page.locator('.document-text').textContent()).trim(), documents[3].text);
    await shootBoth('06-document');
  });

  it('checks a copied text and highlights the passages in both texts', async () => {
    await page.getByRole('link', { name: 'Check a text' }).click();
    await page.getByRole('heading', { level: 1, name: 'Check a text' }).waitFor();
    await page.getByLabel('Demo journal').waitFor();
    await shootBoth('07-check-form');

    // An HTML file is read as its text.
    await page.setInputFiles('#check-file', { name: 'draft.html', mimeType: 'text/html', buffer: Buffer.from(htmlPage) });
    await page.getByText('Loaded draft.html').waitFor();
    const loaded = await page.getByLabel('Text to check').inputValue();
    assert.ok(loaded.includes('Wider letter spacing') && !loaded.includes('var x') && !loaded.includes('Menu'), loaded);

    await page.getByLabel('Text to check').fill(manuscript);
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.locator('.verdict').waitFor();
    assert.equal(await page.locator('.verdict .badge').textContent(), 'Partial copy');
    const sources = await page.locator('table.matches tbody tr td:first-child a').allTextContents();
    assert.ok(sources.includes(documents[0].title) && sources.includes(documents[1].title), sources.join(' | '));

    // Both sources are highlighted in the checked text, each in its own colour.
    const left = page.locator('#pane-query');
    const right = page.locator('#pane-source');
    await left.locator('mark.src-0').first().waitFor();
    await left.locator('mark.src-1').first().waitFor();
    const copied = await left.locator('mark.passage').allTextContents();
    assert.ok(copied.some((t) => t.includes('moored temperature records')), copied.join(' | '));
    assert.ok(copied.some((t) => t.includes('paired sensors on twelve vegetated')), copied.join(' | '));
    assert.ok(!copied.some((t) => t.includes('Taken together')), 'the original ending is not marked');
    // The first source is open on the right with its passage marked.
    await right.locator('mark.passage').first().waitFor();
    const firstTitle = sources[0];
    assert.ok((await page.locator('.pane h3').nth(1).textContent()).includes(firstTitle));
    await shootBoth('08-check-result');

    // The check was kept as a report; its PDF downloads with the token.
    const kept = await page.locator('.report-links').textContent();
    assert.match(kept, /Kept as report [0-9a-f]{24}/);
    const [pdf] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download PDF' }).click(),
    ]);
    assert.match(pdf.suggestedFilename(), /^dupfinder-report-[0-9a-f]{24}-en\.pdf$/);
    const { readFileSync } = await import('node:fs');
    assert.equal(readFileSync(await pdf.path()).subarray(0, 5).toString(), '%PDF-');

    // Selecting the other source's passage on the left opens that source on the right and
    // scrolls both to the passage.
    const otherIndex = sources.findIndex((s) => s !== firstTitle);
    await left.locator(`mark.src-${otherIndex}`).first().click();
    await page.locator('.pane h3').nth(1).getByText(sources[otherIndex]).waitFor();
    const current = right.locator('mark.passage.current').first();
    await current.waitFor();
    assert.ok((await current.textContent()).length > 40);
    await page.waitForTimeout(600);
    const inView = await current.evaluate((mark) => {
      const pane = mark.closest('.pane-text').getBoundingClientRect();
      const box = mark.getBoundingClientRect();
      return box.bottom > pane.top && box.top < pane.bottom;
    });
    assert.ok(inView, 'the passage is scrolled into view in the source pane');
    // The keyboard reaches the passages too.
    await left.locator('mark.passage').first().focus();
    await page.keyboard.press('Enter');
    await right.locator('mark.passage.current').first().waitFor();
    await shoot('09-check-other-source-desktop');
  });

  it('reports an original text as original', async () => {
    await page.getByLabel('Text to check').fill('Medieval monastic scribes copied manuscripts by hand, and their marginal notes reveal how they understood the texts they preserved for later readers.');
    await page.getByRole('button', { name: 'Check', exact: true }).click();
    await page.locator('.verdict .badge', { hasText: 'original' }).waitFor();
    await page.getByText('No copied passages found').waitFor();
  });

  it('shows the crawl queue', async () => {
    await page.getByRole('link', { name: 'Crawl queue' }).click();
    await page.getByRole('heading', { level: 1, name: 'Crawl queue' }).waitFor();
    await page.getByText('The queue is empty').waitFor();
    await shootBoth('10-queue-empty');
  });

  it('crawls a site from the queue with live progress', async () => {
    await page.getByRole('link', { name: 'Libraries', exact: true }).click();
    await page.getByLabel('Identifier').fill('site');
    await page.getByLabel('Name', { exact: true }).fill('Demo site');
    await page.getByText('Crawl a site (optional)').click();
    await page.getByLabel('Start URL').fill(siteUrl);
    await page.getByLabel('Article URLs contain').fill('/article/');
    await page.getByRole('button', { name: 'Add library' }).click();
    await page.getByRole('heading', { level: 1, name: 'Demo site' }).waitFor();

    await page.getByRole('link', { name: 'Crawl queue' }).click();
    await page.getByLabel('Library to crawl').selectOption('site');
    await page.getByRole('button', { name: 'Add to the queue' }).click();
    await page.getByText('site was added to the queue.').waitFor();
    // The queue view polls: the crawl shows up with its stage, then leaves the queue when done.
    const row = page.locator('table.queue tbody tr', { hasText: 'site' });
    await row.waitFor({ timeout: 5_000 });
    assert.match(await row.locator('.badge').textContent(), /queued|finding pages|analysing|crawling|indexing/);
    await shootBoth('11-queue-crawling');
    await page.getByText('The queue is empty').waitFor({ timeout: 60_000 });

    await page.getByRole('link', { name: 'Libraries', exact: true }).click();
    const library = page.locator('table.libraries tbody tr', { hasText: 'Demo site' });
    await library.locator('.badge', { hasText: 'done' }).waitFor();
    assert.equal(await library.locator('td[data-label=Documents]').textContent(), '4');
  });

  it('shows the libraries with their figures', async () => {
    await page.getByRole('link', { name: 'Libraries', exact: true }).click();
    const row = page.locator('table.libraries tbody tr', { hasText: 'Demo journal' });
    await row.waitFor();
    await page.locator('table.libraries tbody tr').nth(1).waitFor();
    assert.equal(await row.locator('td[data-label=Documents]').textContent(), String(documents.length + 1));
    assert.equal(await row.locator('.badge').textContent(), 'ready');
    await shootBoth('12-libraries');
  });

  it('keeps a library\'s standard wording: adds, refuses and removes phrases', async () => {
    const site = page.locator('table.libraries tbody tr', { hasText: 'Demo site' });
    await site.locator('a').first().click();
    await page.getByRole('heading', { level: 2, name: 'Standard wording of this library' }).waitFor();
    await page.getByText('No phrases yet.').waitFor();
    const phrase = 'The editors apologise for the error and thank the readers who noticed it.';
    await page.getByLabel('A phrase (at least three words)').fill(phrase);
    await page.getByRole('button', { name: 'Add the phrase' }).click();
    await page.locator('#phrases-list li', { hasText: phrase }).waitFor();
    await page.getByText('Added; the next check leaves it out.').waitFor();
    // Too few words to match a passage: refused with the UI's own words for the code.
    await page.getByLabel('A phrase (at least three words)').fill('of the journal');
    await page.getByRole('button', { name: 'Add the phrase' }).click();
    await page.getByText('fewer than three words that count').waitFor();
    await page.locator('#phrases-list li', { hasText: phrase }).scrollIntoViewIfNeeded();
    await shoot('12b-phrases-desktop');
    await page.locator('#phrases-list li', { hasText: phrase }).getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No phrases yet.').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Libraries' }).click();
    await page.locator('table.libraries').waitFor();
  });

  it('deletes a document, then a library, after confirmation', async () => {
    const site = page.locator('table.libraries tbody tr', { hasText: 'Demo site' });
    await site.locator('a').first().click();
    await page.locator('table.documents tbody tr').first().waitFor();
    await page.locator('table.documents tbody tr td:first-child a').first().click();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Delete this document…' }).click();
    await page.locator('.stat', { hasText: 'Documents' }).locator('dd', { hasText: '3' }).waitFor();
    // A wrong identifier deletes nothing; the right one deletes the library.
    page.once('dialog', (dialog) => dialog.accept('not-it'));
    await page.getByRole('button', { name: 'Delete this library…' }).click();
    await page.getByText('The identifier did not match; nothing was deleted.').waitFor();
    await shoot('13-delete-library-desktop');
    page.once('dialog', (dialog) => dialog.accept('site'));
    await page.getByRole('button', { name: 'Delete this library…' }).click();
    await page.locator('table.libraries').waitFor();
    assert.equal(await page.locator('table.libraries tbody tr', { hasText: 'Demo site' }).count(), 0);
  });

  it('finds the duplicates inside a library and opens two members side by side', async () => {
    const json = { 'Content-Type': 'application/json' };
    let response = await fetch(`${base}/api/v1/libraries`, { method: 'POST', headers: json, body: JSON.stringify({ id: 'twins', name: 'Twins journal' }) });
    assert.equal(response.status, 201);
    for (const doc of twins) {
      response = await fetch(`${base}/api/v1/libraries/twins/documents`, { method: 'POST', headers: json, body: JSON.stringify(doc) });
      assert.equal(response.status, 200);
    }
    await page.goto(`${base}/#/libraries/twins`);
    await page.getByRole('heading', { level: 1, name: 'Twins journal' }).waitFor();
    await page.locator('#duplicates-link').click();
    await page.getByRole('heading', { level: 1, name: 'Duplicates in twins' }).waitFor();
    await page.getByText('The library has not been searched for duplicates yet.').waitFor();
    await page.getByRole('button', { name: 'Find duplicates' }).click();
    await page.getByText(`Checked ${twins.length} documents.`).waitFor({ timeout: 30_000 });
    // One cluster: the two versions of the OCR paper, the unrelated papers left out.
    await page.locator('#clusters caption', { hasText: '1 cluster' }).waitFor();
    const cluster = await page.locator('#clusters tbody').textContent();
    assert.ok(cluster.includes('ocr-2020') && cluster.includes('ocr-2020-journal'), cluster);
    assert.ok(!cluster.includes(documents[3].id) && !cluster.includes(documents[5].id), cluster);
    assert.equal(await page.locator('#clusters td[data-label=Relation]').textContent(), 'version');
    await shootBoth('13b-duplicates');

    // Side by side: both members, the shared text highlighted in each.
    await page.locator('#clusters').getByRole('button', { name: 'Compare' }).click();
    await page.getByRole('heading', { level: 2, name: 'Side by side' }).waitFor();
    const left = page.locator('#pane-left');
    const right = page.locator('#pane-right');
    await left.locator('mark.passage').first().waitFor();
    await right.locator('mark.passage').first().waitFor();
    const titles = await page.locator('#compare .pane h3').allTextContents();
    assert.deepEqual(titles, [documents[2].title, documents[2].title]);
    const [leftText, rightText] = [await left.textContent(), await right.textContent()];
    assert.ok(leftText.includes('The model reduces the word error rate') !== rightText.includes('The model reduces the word error rate'), 'the panes hold the two versions');
    for (const pane of [left, right]) {
      const marked = (await pane.locator('mark.passage').allTextContents()).join(' ');
      assert.ok(marked.includes('Digitised newspapers from the nineteenth century'), marked);
      assert.ok(marked.length > 200, `${marked.length} characters marked`);
    }
    // Selecting a passage on the left marks the same passage on the right.
    await left.locator('mark.passage').first().click();
    await right.locator('mark.passage.current').first().waitFor();
    await shootBoth('13c-duplicates-side-by-side');
    await page.locator('nav a[data-nav=libraries]').click();
    await page.locator('table.libraries').waitFor();
  });

  it('uploads a PDF and a DOCX on the check page and shows their passages', async () => {
    // A library holding the source of the manuscript in tests/fixtures/files (it copies ru-01).
    const source = readFileSync(resolve(here, '../fixtures/corpus.jsonl'), 'utf8')
      .split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((d) => d.id === 'ru-01');
    const json = { 'Content-Type': 'application/json' };
    let response = await fetch(`${base}/api/v1/libraries`, { method: 'POST', headers: json, body: JSON.stringify({ id: 'files', name: 'Files journal' }) });
    assert.equal(response.status, 201);
    response = await fetch(`${base}/api/v1/libraries/files/documents`, { method: 'POST', headers: json, body: JSON.stringify(source) });
    assert.equal(response.status, 200);

    for (const [name, format] of [['manuscript.pdf', 'PDF'], ['manuscript.docx', 'DOCX']]) {
      await page.getByRole('link', { name: 'Check a text' }).click();
      await page.getByRole('heading', { level: 1, name: 'Check a text' }).waitFor();
      await page.getByLabel('Files journal').waitFor();
      await page.setInputFiles('#check-file', resolve(here, '../fixtures/files', name));
      await page.getByText(`${name} (`).waitFor();
      // The file is not shown as text.
      assert.equal(await page.getByLabel('Text to check').inputValue(), '');
      await page.getByRole('button', { name: 'Check', exact: true }).click();
      await page.locator('.verdict').waitFor();
      assert.equal(await page.locator('.verdict .badge').textContent(), 'Duplicate');
      assert.ok((await page.locator('.checked-file').textContent()).includes(`${name} — ${format}`));
      const sources = await page.locator('table.matches tbody tr td:first-child a').allTextContents();
      assert.ok(sources.includes(source.title), sources.join(' | '));
      const copied = await page.locator('#pane-query mark.passage').allTextContents();
      assert.ok(copied.some((t) => t.includes('Статья посвящена проблеме')), copied.join(' | '));
      await page.locator('#pane-source mark.passage').first().waitFor();
      await shootBoth(`14-check-${format.toLowerCase()}`);
    }
  });

  // A percentage as the page shows it ("12.5 %", "12,5 %") → 12.5.
  const percentOf = (text) => Number(text.replace(/[^\d,.-]/g, '').replace(',', '.'));

  // The report page's figures: the index, each source's share and the total row, which must
  // agree (to the rounding of one decimal per source).
  async function reportFigures() {
    const index = percentOf(await page.locator('#similarity-index').textContent());
    const shares = (await page.locator('#sources tbody td.share').allTextContents()).map(percentOf);
    const total = percentOf(await page.locator('#shares-total').textContent());
    const sum = shares.reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total - index) <= 0.05, `total ${total} ≠ index ${index}`);
    assert.ok(Math.abs(sum - index) <= 0.05 * shares.length + 0.05, `sources ${shares.join('+')} ≠ index ${index}`);
    return { index, shares };
  }

  // Upload `file` on the check page, open the report it was kept as, leave quotations in,
  // decide, reload the permalink and download the PDF: the flow an editor follows, in the
  // interface's current language. `words` are the labels expected in that language.
  async function reportFlow(file, words, shotName) {
    await page.locator('nav a[data-nav=check]').click();
    await page.locator('#check-file').waitFor();
    await page.locator('input[name=library][value=files]').waitFor();
    await page.setInputFiles('#check-file', resolve(here, '../fixtures/files', file));
    await page.getByText(`${file} (`).waitFor();
    await page.locator('form.check-form button[type=submit]').click();
    await page.locator('#pane-query mark.passage').first().waitFor();
    const copied = await page.locator('#pane-query mark.passage').allTextContents();
    assert.ok(copied.some((t) => t.includes('признают такие меры законными')), copied.join(' | '));
    // The check page's figures, which the report page must show alike.
    const checkIndex = percentOf(await page.locator('#check-index').textContent());
    const checkWords = (await page.locator('#check-words').textContent()).replace(/\D/g, '');

    // The check leads to its report, at a permalink.
    await page.getByRole('link', { name: words.openReport }).click();
    await page.waitForURL(/#\/reports\/[0-9a-f]{24}$/);
    const permalink = page.url();
    const id = /reports\/([0-9a-f]{24})/.exec(permalink)[1];
    await page.getByRole('heading', { level: 1, name: file }).waitFor();
    await page.getByText(words.index, { exact: true }).waitFor();
    await page.locator('#pane-query mark.passage').first().waitFor();
    await page.locator('#pane-source mark.passage').first().waitFor();
    // Every passage is marked with its source's number and kind; the quotation is left out.
    assert.ok(await page.locator('#pane-query mark.passage.kind-quoted.muted').count() >= 1, 'the quotation is marked as left out');
    assert.ok(await page.locator('#pane-query mark.passage.kind-copied:not(.muted) sup.source-mark').count() >= 1, 'copied passages carry their source number');
    const before = await reportFigures();
    assert.ok(before.index > 0);
    assert.equal(before.index, checkIndex, 'the check page and the report page show one index');
    assert.equal((await page.locator('#report-words').textContent()).replace(/\D/g, ''), checkWords,
      'the check page and the report page count the words alike');
    // What was found in each source says how much of it was reused, never more.
    const findings = await page.locator('#sources tbody td[data-label]:nth-child(4)').allTextContents();
    assert.ok(findings.every((f) => !/Copied whole|целиком/.test(f)), findings.join(' | '));
    // No internal jargon on the page.
    const body = await page.locator('main').textContent();
    for (const jargon of ['shingles', 'Found by', 'Drift', 'generation', 'containment', 'resemblance']) {
      assert.ok(!body.includes(jargon), `the page says “${jargon}”`);
    }
    await shootBoth(`${shotName}-report`);

    // Counting quotations again raises the index; the figures still add up; the address keeps it.
    await page.getByLabel(words.leaveOutQuotes).uncheck();
    await page.waitForURL(/exclude=/);
    await page.locator('#pane-query mark.passage.kind-quoted:not(.muted)').first().waitFor();
    const after = await reportFigures();
    assert.ok(after.index > before.index, `${after.index} > ${before.index}`);

    // The decision, with its note and its history.
    await page.getByLabel(words.decisionLabel, { exact: true }).selectOption('duplicate');
    await page.getByLabel(words.note, { exact: true }).fill(words.noteText);
    await page.getByRole('button', { name: words.saveDecision }).click();
    await page.getByText(words.saved).waitFor();
    await page.locator('.history li').first().waitFor();
    await shoot(`${shotName}-report-decided-desktop`);

    // The permalink survives a reload: the same report, the decision kept, quotations counted.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: file }).waitFor();
    assert.match(page.url(), new RegExp(`reports/${id}\\?`));
    assert.equal(await page.locator('#decision').inputValue(), 'duplicate');
    assert.equal(await page.locator('#decision-note').inputValue(), words.noteText);
    assert.equal(await page.getByLabel(words.leaveOutQuotes).isChecked(), false);
    assert.equal((await reportFigures()).index, after.index);
    assert.equal(await page.locator('.history li').count(), 1);

    // The PDF, in the interface's language.
    const [pdf] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: words.downloadPdf }).click(),
    ]);
    assert.equal(pdf.suggestedFilename(), `dupfinder-report-${id}-${words.lang}.pdf`);
    const bytes = readFileSync(await pdf.path());
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
    writeFileSync(join(artifacts, `${shotName}-report.pdf`), bytes);

    // Printing gives the report: no navigation or forms, the texts in full with their highlights.
    await page.emulateMedia({ media: 'print' });
    assert.equal(await page.locator('header.masthead').isVisible(), false);
    assert.equal(await page.locator('#exclusions').isVisible(), false);
    assert.equal(await page.locator('#decision').isVisible(), false);
    const clipped = await page.locator('.pane-text').evaluateAll((panes) => panes.some((p) => p.scrollHeight > p.clientHeight + 1));
    assert.equal(clipped, false, 'a text pane is clipped in print');
    await shoot(`${shotName}-report-print-desktop`);
    await page.emulateMedia({ media: 'screen' });
    return id;
  }

  it('keeps a check as a report: exclusions, decision, permalink, PDF and print (English)', async () => {
    await reportFlow('quoted.pdf', {
      lang: 'en', openReport: 'Open the full report', index: 'Similarity index',
      leaveOutQuotes: 'Leave out quotations', decisionLabel: 'Editor’s decision', note: 'Note',
      noteText: 'The overview copies ru-01 without citing it.', saveDecision: 'Save decision',
      saved: 'Decision saved.', downloadPdf: 'Download PDF',
    }, '15-en');
  });

  it('lists the reports with filters and pages', async () => {
    await page.locator('nav a[data-nav=reports]').click();
    await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor();
    const rows = page.locator('#reports tbody tr');
    await rows.first().waitFor();
    const all = await rows.count();
    assert.ok(all >= 4, `${all} reports`);
    await shootBoth('16-en-reports');
    await page.getByLabel('Decision', { exact: true }).selectOption('duplicate');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForURL(/decision=duplicate/);
    await page.locator('#reports caption', { hasText: 'of 1,' }).waitFor();
    assert.equal(await rows.count(), 1);
    assert.ok((await rows.first().textContent()).includes('quoted.pdf'));
    await page.getByLabel('Result', { exact: true }).selectOption('original');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No report matches these filters.').waitFor();
    await page.getByRole('link', { name: 'Clear filters' }).click();
    await rows.nth(all - 1).waitFor();
  });

  it('speaks Russian: the same flow, the choice remembered', async () => {
    await page.locator('#language').selectOption('ru');
    await page.locator('nav a[data-nav=reports]', { hasText: 'Отчёты' }).waitFor();
    await page.reload();
    await page.locator('nav a[data-nav=check]', { hasText: 'Проверить текст' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
    await reportFlow('quoted.docx', {
      lang: 'ru', openReport: 'Открыть полный отчёт', index: 'Индекс сходства',
      leaveOutQuotes: 'Не учитывать цитаты', decisionLabel: 'Решение редактора', note: 'Примечание',
      noteText: 'Обзор заимствован из ru-01 без ссылки.', saveDecision: 'Сохранить решение',
      saved: 'Решение сохранено.', downloadPdf: 'Скачать PDF',
    }, '17-ru');
    // Russian labels, and no English left on the report page.
    const body = await page.locator('main').textContent();
    for (const label of ['Отчёт о проверке на заимствования', 'Источники', 'Доля рукописи', 'Что учитывать', 'История решений']) {
      assert.ok(body.includes(label), `missing “${label}”`);
    }
    for (const english of ['Similarity', 'Sources', 'Decision', 'Download', 'Quotation', 'Copied']) {
      assert.ok(!body.includes(english), `English “${english}” on the Russian page`);
    }
    await page.locator('nav a[data-nav=reports]').click();
    await page.getByRole('heading', { level: 1, name: 'Отчёты' }).waitFor();
    await page.locator('#reports tbody tr').first().waitFor();
    await shootBoth('18-ru-reports');
    await page.locator('nav a[data-nav=libraries]').click();
    await page.getByRole('heading', { level: 1, name: 'Библиотеки' }).waitFor();
    await shootBoth('19-ru-libraries');
    // The duplicates page and the side-by-side view in Russian.
    await page.goto(`${base}/#/libraries/twins/duplicates`);
    await page.getByRole('heading', { level: 1, name: 'Дубликаты в библиотеке twins' }).waitFor();
    await page.locator('#clusters caption', { hasText: '1 группа' }).waitFor();
    assert.equal(await page.locator('#clusters td[data-label="Связь"]').textContent(), 'версия');
    await page.locator('#clusters').getByRole('button', { name: 'Сравнить' }).click();
    await page.getByRole('heading', { level: 2, name: 'Рядом' }).waitFor();
    await page.locator('#pane-right mark.passage').first().waitFor();
    const duplicatesPage = await page.locator('main').textContent();
    for (const english of ['Duplicates', 'Main record', 'Similarity', 'Side by side', 'resemblance']) {
      assert.ok(!duplicatesPage.includes(english), `English “${english}” on the Russian duplicates page`);
    }
    await shootBoth('19b-ru-duplicates');
    await page.locator('#language').selectOption('en');
    await page.locator('nav a[data-nav=reports]', { hasText: 'Reports' }).waitFor();
  });

  it('pages through many libraries and filters them by id or name', async () => {
    // A registry import of 61 libraries, sorted after the others by their ids.
    const lines = Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: `zz-journal-${String(i).padStart(2, '0')}`, name: `Journal of tests ${i}` }));
    lines.push(JSON.stringify({ id: 'zz-vestnik', name: 'Вестник испытаний', schedule: { every_hours: 168 }, paused: true }));
    const response = await fetch(`${base}/api/v1/libraries`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: lines.join('\n') });
    const imported = await response.json();
    assert.equal(response.status, 200, JSON.stringify(imported));
    assert.equal(imported.created, 61);

    await page.goto(`${base}/#/libraries`);
    const caption = page.locator('table.libraries caption');
    await caption.filter({ hasText: /^Libraries 1–50 of \d+\.$/ }).waitFor();
    const total = Number((await caption.textContent()).match(/of (\d+)/)[1]);
    assert.ok(total >= 61, `${total} libraries`);
    assert.equal(await page.locator('table.libraries tbody tr').count(), 50);
    await page.getByText(`Page 1 of ${Math.ceil(total / 50)}`).waitFor();
    await shootBoth('20-libraries-paged');
    await page.getByRole('link', { name: 'Next →' }).click();
    await page.waitForURL(/#\/libraries\?offset=50$/);
    await caption.filter({ hasText: `Libraries 51–${total} of ${total}.` }).waitFor();
    await page.locator('table.libraries tbody tr', { hasText: 'Вестник испытаний' }).waitFor();
    await page.getByRole('link', { name: '← Previous' }).waitFor();

    // By name, in any case: the paused library with its schedule.
    await page.getByLabel('Find a library').fill('ВЕСТНИК');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.waitForURL(/q=%D0%92%D0%95%D0%A1%D0%A2%D0%9D%D0%98%D0%9A/);
    await caption.filter({ hasText: 'Libraries 1–1 of 1.' }).waitFor();
    const row = page.locator('table.libraries tbody tr');
    assert.equal(await row.count(), 1);
    await row.locator('.badge', { hasText: 'paused' }).waitFor();
    await row.getByText('re-harvest every 168 h').waitFor();
    assert.equal(await page.locator('nav.pager').count(), 0);
    await shootBoth('21-libraries-filtered');
    // By id; then a filter nothing matches, and back to every library.
    await page.getByLabel('Find a library').fill('zz-journal-1');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await caption.filter({ hasText: 'Libraries 1–10 of 10.' }).waitFor();
    await page.getByLabel('Find a library').fill('nothing like this');
    await page.getByRole('button', { name: 'Find', exact: true }).click();
    await page.getByText('No library’s identifier or name holds “nothing like this”.').waitFor();
    await page.getByRole('link', { name: 'Show all' }).first().click();
    await caption.filter({ hasText: `Libraries 1–50 of ${total}.` }).waitFor();
  });

  it('checks many files and lists them readably on a phone, in Russian', async () => {
    await page.goto(`${base}/?lang=ru#/batch`);
    await page.locator('#batch-passages').waitFor();
    await page.setInputFiles('input[type=file]', ['quoted.docx', 'manuscript.txt'].map((f) => resolve(here, '../fixtures/files', f)));
    await page.getByRole('button', { name: 'Проверить файлы' }).click();
    await page.locator('#batch-items tbody tr').nth(1).waitFor({ timeout: 60_000 });
    const cells = await page.locator('#batch-items tbody td[data-label]').count();
    assert.ok(cells >= 10, `${cells} labelled cells`);
    await shootBoth('22-ru-batch');
    await page.goto(`${base}/?lang=en#/check`);
    await page.locator('nav a[data-nav=reports]', { hasText: 'Reports' }).waitFor();
  });

  it('opens in the language the address asks for (?lang=)', async () => {
    await page.goto(`${base}/?lang=ru#/check`);
    await page.locator('nav a[data-nav=reports]', { hasText: 'Отчёты' }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('lang'), 'ru');
    await page.goto(`${base}/?lang=en#/reports`);
    await page.locator('nav a[data-nav=reports]', { hasText: 'Reports' }).waitFor();
    await page.locator('#reports tbody tr').first().waitFor();
    // Switching the language writes it into the address, for a link to be sent.
    await page.locator('#language').selectOption('ru');
    await page.waitForURL(/lang=ru/);
    await page.locator('#language').selectOption('en');
    await page.waitForURL(/lang=en/);
  });

  it('raised no script errors', () => {
    assert.deepEqual(pageErrors, []);
  });
});
