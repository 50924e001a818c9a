/**
 * A tar (ustar) of the helper sources, made in memory so that copying them to a node needs
 * no local `tar` and no shell, and holds exactly the files `sourceHash` covers (`sourceFiles`), so the hash names what was sent.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sourceFiles } from '../runtime/sourceFiles';

const BLOCK = 512;

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0');
}

function header(name: string, size: number, mode: number, type: '0' | '5', mtime: number): Buffer {
  const h = Buffer.alloc(BLOCK, 0);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    // ustar splits long names at a slash: up to 155 bytes of prefix, up to 100 of name.
    const cut = name.lastIndexOf('/', 155);
    if (cut <= 0 || Buffer.byteLength(name.slice(cut + 1)) > 100 || Buffer.byteLength(name.slice(0, cut)) > 155)
      throw new Error(`path too long for the helper's source archive: ${name}`);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
  }
  h.write(base, 0, 100, 'utf8');
  h.write(octal(mode & 0o7777, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii');
  h.write(octal(0, 8), 116, 8, 'ascii');
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(mtime, 12), 136, 12, 'ascii');
  h.write('        ', 148, 8, 'ascii');
  h.write(type, 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${octal(sum, 7)}\0 `, 148, 8, 'ascii');
  return h;
}

export { sourceFiles } from '../runtime/sourceFiles';

/** A tar archive of the source tree, ready to stream into `tar -x`. */
export async function packSources(root: string, mtime = Math.floor(Date.now() / 1000)): Promise<Buffer> {
  const files = await sourceFiles(root);
  const parts: Buffer[] = [];
  const dirs = new Set<string>();
  for (const file of files) {
    const segments = file.split('/');
    for (let i = 1; i < segments.length; i++) {
      const dir = `${segments.slice(0, i).join('/')}/`;
      if (!dirs.has(dir)) {
        dirs.add(dir);
        parts.push(header(dir, 0, 0o755, '5', mtime));
      }
    }
    const full = join(root, ...segments);
    const [data, st] = await Promise.all([readFile(full), stat(full)]);
    parts.push(header(file, data.length, st.mode & 0o111 ? 0o755 : 0o644, '0', mtime), data);
    const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(BLOCK * 2, 0));
  return Buffer.concat(parts);
}
