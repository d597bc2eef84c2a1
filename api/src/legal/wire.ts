/** The terms and the privacy policy (/api/legal): the operator's texts, else the defaults. */
import type { Base } from '../wiring.ts';
import { LegalTexts } from './LegalTexts.ts';
import { legalRoutes } from './routes.ts';

export function wireLegal({ config, logger }: Base) {
  return {
    routes: [legalRoutes(new LegalTexts({ dataDir: config.dataDir, logger })).routes()],
  };
}
