import { startOwnSandbox } from './test-support/own-sandbox.js';
import { runConformance } from './run.js';

const own = await startOwnSandbox({ webhookProfile: 'B' });
try {
  const run = await runConformance({ profile: 'B', sandbox: own.file, url: own.url, apiKey: own.apiKey, selection: { skipTags: [] } });
  for (const r of run.report.results as any[]) {
    if (r.status !== "PASSED") console.log(JSON.stringify(r).slice(0, 3000));
  }
  console.log('summary', JSON.stringify((run.report as any).summary));
} finally {
  await own.stop();
}
