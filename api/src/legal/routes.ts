/** GET /api/legal/terms and /api/legal/privacy?lang=xx, open to everyone. */
import Router from '@koa/router';
import {
  DEFAULT_LANGUAGE,
  isLanguageCode,
  type LanguageCode,
  LEGAL_DOCUMENTS,
  LEGAL_ROUTES,
} from '@voice/protocol';
import { z } from 'zod';
import { validate } from '../http/validate.ts';
import type { LegalTexts } from './LegalTexts.ts';

const querySchema = z.object({
  lang: z
    .custom<LanguageCode>(isLanguageCode, { message: 'Unsupported language' })
    .optional()
    .default(DEFAULT_LANGUAGE),
});

export function legalRoutes(texts: LegalTexts) {
  const router = new Router();
  for (const document of LEGAL_DOCUMENTS) {
    router.get(LEGAL_ROUTES.document(document), async (ctx) => {
      const { lang } = validate(querySchema, ctx.query);
      ctx.body = await texts.get(document, lang);
    });
  }
  return router;
}
