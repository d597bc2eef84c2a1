/**
 * The terms of service and privacy policy: GET LEGAL_ROUTES.document(name)?lang=xx, open to
 * everyone. The operator's own text (DATA_DIR/legal/<name>.<lang>.md, else <name>.md) wins
 * over the defaults shipped for a self-hosted service. Plain text with minimal markdown
 * (headings, paragraphs, lists, **bold**, links), rendered by the web as text, never as HTML.
 */
import type { LanguageCode } from './languages.ts';

export const LEGAL_DOCUMENTS = ['terms', 'privacy'] as const;
export type LegalDocument = (typeof LEGAL_DOCUMENTS)[number];

/** Largest operator file served; a bigger one is ignored (with a log line) for the default. */
export const LEGAL_TEXT_MAX_BYTES = 256 * 1024;

export interface LegalTextResponse {
  document: LegalDocument;
  /** The language asked for (`lang`, one of LANGUAGE_CODES; default DEFAULT_LANGUAGE). */
  language: LanguageCode;
  /** The text as written; an operator's single-language file is served for every language. */
  text: string;
  /** `operator`: the operator's own file; `default`: the text shipped with the software. */
  source: 'operator' | 'default';
}

export const LEGAL_ROUTES = {
  document: (name: LegalDocument) => `/legal/${name}`,
} as const;
