/**
 * The terms of service and privacy policy. An operator replaces them by dropping files in
 * DATA_DIR/legal: `<document>.<lang>.md` for one language, `<document>.md` for all of them.
 * Files are read on each request, so a replaced text is served without a restart.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type LanguageCode,
  LEGAL_TEXT_MAX_BYTES,
  type LegalDocument,
  type LegalTextResponse,
} from '@voice/protocol';
import type { Logger } from '../logger.ts';

/** The defaults shipped with the software, one file per document and language. */
const DEFAULTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'defaults');

/** NUL and the other control characters but tab and line breaks: of no use in a text, and they confuse viewers. */
const CONTROL_CHARACTERS = /(?![\t\n\r])\p{Cc}/gu;

export class LegalTexts {
  readonly #dir: string;
  readonly #logger: Logger;
  /** The defaults never change while the process runs. */
  readonly #defaults = new Map<string, Promise<string>>();

  constructor({ dataDir, logger }: { dataDir: string; logger: Logger }) {
    this.#dir = path.join(dataDir, 'legal');
    this.#logger = logger;
  }

  /** The operator's text in `language` (or in their single file), else the default. */
  async get(document: LegalDocument, language: LanguageCode): Promise<LegalTextResponse> {
    for (const name of [`${document}.${language}.md`, `${document}.md`]) {
      const text = await this.#readOperatorFile(name);
      if (text !== null) return { document, language, text, source: 'operator' };
    }
    return { document, language, text: await this.#default(document, language), source: 'default' };
  }

  async #readOperatorFile(name: string): Promise<string | null> {
    const file = path.join(this.#dir, name);
    try {
      const info = await stat(file);
      if (!info.isFile()) return null;
      if (info.size > LEGAL_TEXT_MAX_BYTES) {
        this.#logger.warn('legal text too large; serving the next one', {
          file,
          bytes: info.size,
          max: LEGAL_TEXT_MAX_BYTES,
        });
        return null;
      }
      return (await readFile(file, 'utf8')).replace(CONTROL_CHARACTERS, '');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#logger.warn('legal text unreadable; serving the next one', { file, error });
      }
      return null;
    }
  }

  #default(document: LegalDocument, language: LanguageCode): Promise<string> {
    const name = `${document}.${language}.md`;
    let text = this.#defaults.get(name);
    if (!text) {
      text = readFile(path.join(DEFAULTS_DIR, name), 'utf8');
      this.#defaults.set(name, text);
    }
    return text;
  }
}
