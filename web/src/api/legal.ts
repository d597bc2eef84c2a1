/** The terms of service and privacy policy, open to everyone (protocol legal.ts). */
import { type LanguageCode, LEGAL_ROUTES, type LegalDocument, type LegalTextResponse } from '@voice/protocol';
import { apiRequest } from './client.ts';

export const legalApi = {
  get: (document: LegalDocument, language: LanguageCode, signal?: AbortSignal) =>
    apiRequest<LegalTextResponse>(`${LEGAL_ROUTES.document(document)}?lang=${encodeURIComponent(language)}`, {
      ...(signal ? { signal } : {}),
    }),
};
