// Re-indexing a library from its page: start a job, follow its progress, stop it. A job that is
// already queued or running for the library (started elsewhere, or by drift) is picked up.

import { path } from './api.js';
import { number } from './dom.js';
import { t } from './i18n.js';
import { jobPanel } from './job.js';

export function reindexPanel(lib, onFinished) {
  // Only a re-index is picked up: a dedup job of the library has its own panel.
  return jobPanel({
    library: lib.id,
    kind: 'reindex',
    start: { label: t('reindex.start'), url: `/api/v1/libraries/${path(lib.id)}/reindex` },
    text: {
      stop: () => t('reindex.stop'),
      progress: () => t('reindex.progress'),
      queued: () => t('reindex.queued'),
      running: (job) => t('reindex.running', { done: number(job.done), total: number(job.total) }),
      done: (job) => t('reindex.done', { n: job.generation }),
      aborted: (job) => t('reindex.aborted', { done: number(job.done), total: number(job.total) }),
      failed: (job) => t('reindex.failed', { error: job.error || t('common.unknown_error') }),
    },
    onFinished,
  });
}
