import { seededNormal } from './random.js';

/**
 * The latent semantic analysis model behind the built-in embedder, as plain data and pure
 * functions, so that it can be fitted in a worker thread (lsa-worker.ts) and handed back by
 * structured clone: term weighting, the randomized truncated SVD (Halko, Martinsson & Tropp
 * 2011) and the fold-in projection of a text.
 */
export type LsaWeighting = 'tfidf' | 'log-entropy';

export interface LsaModel {
  readonly vocabulary: Map<string, number>;
  /** Global weight of each term (IDF, or the entropy weight). */
  readonly idf: Float64Array;
  readonly weighting: LsaWeighting;
  /** Aᵀ Q (terms × l, row-major): a text's coordinates in the range basis, before rotation. */
  readonly termBasis: Float64Array;
  /** W_k Σ_k⁻¹ (l × k, row-major): rotation onto the singular directions. */
  readonly rotation: Float64Array;
  readonly rank: number;
  readonly width: number;
}

export interface FitSettings {
  readonly dimensions: number;
  readonly minDf: number;
  readonly maxVocabulary: number;
  readonly powerIterations: number;
  readonly singularPower: number;
  readonly seed: number;
  readonly weighting: LsaWeighting;
}

const OVERSAMPLING = 16;

const SUBLINEAR = (count: number): number => 1 + Math.log(count);
const LOG_LOCAL = (count: number): number => Math.log(1 + count);

/**
 * A text's weighted term vector, L2-normalised, as sparse (term index, weight) pairs: sublinear
 * TF × IDF, or log(1 + tf) × entropy weight.
 */
export const tfidf = (
  terms: readonly string[],
  vocabulary: ReadonlyMap<string, number>,
  idf: Float64Array,
  weighting: LsaWeighting,
): [number, number][] => {
  const local = weighting === 'log-entropy' ? LOG_LOCAL : SUBLINEAR;
  const counts = new Map<number, number>();
  for (const term of terms) {
    const index = vocabulary.get(term);
    if (index !== undefined) counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  const row: [number, number][] = [];
  let norm = 0;
  for (const [index, count] of counts) {
    const weight = local(count) * (idf[index] ?? 0);
    row.push([index, weight]);
    norm += weight * weight;
  }
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (const entry of row) entry[1] *= scale;
  }
  return row;
};

export const fitModel = (
  documents: readonly string[][],
  settings: FitSettings,
): LsaModel | undefined => {
  const n = documents.length;
  const df = new Map<string, number>();
  for (const terms of documents)
    for (const term of new Set(terms)) df.set(term, (df.get(term) ?? 0) + 1);
  const kept = [...df.entries()]
    .filter(([, count]) => count >= Math.min(settings.minDf, n))
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, settings.maxVocabulary);
  const m = kept.length;
  if (n === 0 || m === 0) return undefined;
  const vocabulary = new Map(kept.map(([term], index) => [term, index]));
  const idf = new Float64Array(m);
  kept.forEach(([, count], index) => {
    idf[index] = Math.log((n + 1) / (count + 0.5));
  });
  if (settings.weighting === 'log-entropy') {
    // g = 1 + Σ_j p_j log p_j / log n, p_j = tf_j / gf: 1 for a term in one document, 0 for a
    // term spread evenly over all.
    const frequencies = documents.map((terms) => {
      const counts = new Map<number, number>();
      for (const term of terms) {
        const index = vocabulary.get(term);
        if (index !== undefined) counts.set(index, (counts.get(index) ?? 0) + 1);
      }
      return counts;
    });
    const global = new Float64Array(m);
    for (const counts of frequencies) for (const [i, c] of counts) global[i] = (global[i] ?? 0) + c;
    const entropy = new Float64Array(m);
    for (const counts of frequencies)
      for (const [i, c] of counts) {
        const p = c / (global[i] ?? 1);
        entropy[i] = (entropy[i] ?? 0) + p * Math.log(p);
      }
    const logN = Math.log(Math.max(n, 2));
    for (let i = 0; i < m; i += 1) idf[i] = 1 + (entropy[i] ?? 0) / logN;
  }
  const rows = documents.map((terms) => tfidf(terms, vocabulary, idf, settings.weighting));

  const rank = Math.min(settings.dimensions, n, m);
  const l = Math.min(rank + OVERSAMPLING, n, m);
  const normal = seededNormal(settings.seed);
  const omega = new Float64Array(m * l);
  for (let i = 0; i < omega.length; i += 1) omega[i] = normal();

  // Range finder with power iterations: Q spans the top left singular directions of A.
  // Double precision keeps the columns independent over a few iterations, so only the
  // final basis is orthonormalised (the costly step on a wide vocabulary).
  let y = multiplyA(rows, omega, n, l);
  for (let it = 0; it < settings.powerIterations; it += 1) {
    y = multiplyA(rows, scaleColumns(multiplyAt(rows, y, m, l), m, l), n, l);
    scaleColumns(y, n, l);
  }
  const q = orthonormalColumns(y, n, l);
  // B = Qᵀ A, kept transposed (terms × l); its Gram matrix B Bᵀ is l × l.
  const bt = multiplyAt(rows, q, m, l);
  const gram = new Float64Array(l * l);
  for (let j = 0; j < m; j += 1) {
    const base = j * l;
    for (let a = 0; a < l; a += 1) {
      const va = bt[base + a] ?? 0;
      if (va === 0) continue;
      const ga = a * l;
      for (let b = a; b < l; b += 1) gram[ga + b] = (gram[ga + b] ?? 0) + va * (bt[base + b] ?? 0);
    }
  }
  for (let a = 0; a < l; a += 1)
    for (let b = 0; b < a; b += 1) gram[a * l + b] = gram[b * l + a] ?? 0;
  const { values, vectors } = symmetricEigen(gram, l);
  const order = [...values.keys()].sort((a, b) => (values[b] ?? 0) - (values[a] ?? 0));
  const rotation = new Float64Array(l * rank);
  for (let r = 0; r < rank; r += 1) {
    const column = order[r] ?? 0;
    const sigma = Math.sqrt(Math.max(values[column] ?? 0, 0));
    // Fold-in: x Bᵀ W Σ⁻¹ = x V_k (the projection onto the right singular vectors), then each
    // dimension scaled by σ^(p − 1); for p = 1 a corpus document maps to its row of U Σ.
    const scale = sigma > 1e-12 ? sigma ** (settings.singularPower - 2) : 0;
    for (let c = 0; c < l; c += 1) rotation[c * rank + r] = (vectors[c * l + column] ?? 0) * scale;
  }
  return {
    vocabulary,
    idf,
    weighting: settings.weighting,
    termBasis: bt,
    rotation,
    rank,
    width: l,
  };
};

/** A (n × m sparse rows) times X (m × l row-major) → n × l row-major. */
const multiplyA = (
  rows: readonly [number, number][][],
  x: Float64Array,
  n: number,
  l: number,
): Float64Array => {
  const out = new Float64Array(n * l);
  for (let i = 0; i < n; i += 1) {
    const base = i * l;
    for (const [j, a] of rows[i] ?? []) {
      const xb = j * l;
      for (let c = 0; c < l; c += 1) out[base + c] = (out[base + c] ?? 0) + a * (x[xb + c] ?? 0);
    }
  }
  return out;
};

/** Aᵀ (m × n) times Y (n × l row-major) → m × l row-major. */
const multiplyAt = (
  rows: readonly [number, number][][],
  y: Float64Array,
  m: number,
  l: number,
): Float64Array => {
  const out = new Float64Array(m * l);
  rows.forEach((row, i) => {
    const yb = i * l;
    for (const [j, a] of row) {
      const base = j * l;
      for (let c = 0; c < l; c += 1) out[base + c] = (out[base + c] ?? 0) + a * (y[yb + c] ?? 0);
    }
  });
  return out;
};

/** Orthonormalises the columns of a (rows × cols, row-major) matrix: modified Gram–Schmidt. */
const orthonormalColumns = (matrix: Float64Array, rows: number, cols: number): Float64Array => {
  // Work on the transpose so each column is contiguous.
  const t = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i += 1)
    for (let c = 0; c < cols; c += 1) t[c * rows + i] = matrix[i * cols + c] ?? 0;
  for (let c = 0; c < cols; c += 1) {
    const cb = c * rows;
    for (let p = 0; p < c; p += 1) {
      const pb = p * rows;
      let dot = 0;
      for (let i = 0; i < rows; i += 1) dot += (t[cb + i] ?? 0) * (t[pb + i] ?? 0);
      for (let i = 0; i < rows; i += 1) t[cb + i] = (t[cb + i] ?? 0) - dot * (t[pb + i] ?? 0);
    }
    let norm = 0;
    for (let i = 0; i < rows; i += 1) norm += (t[cb + i] ?? 0) ** 2;
    const scale = norm > 1e-20 ? 1 / Math.sqrt(norm) : 0;
    for (let i = 0; i < rows; i += 1) t[cb + i] = (t[cb + i] ?? 0) * scale;
  }
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i += 1)
    for (let c = 0; c < cols; c += 1) out[i * cols + c] = t[c * rows + i] ?? 0;
  return out;
};

/** Scales each column of a (rows × cols, row-major) matrix to unit length, in place. */
const scaleColumns = (matrix: Float64Array, rows: number, cols: number): Float64Array => {
  const norms = new Float64Array(cols);
  for (let i = 0; i < rows; i += 1) {
    const base = i * cols;
    for (let c = 0; c < cols; c += 1) norms[c] = (norms[c] ?? 0) + (matrix[base + c] ?? 0) ** 2;
  }
  for (let c = 0; c < cols; c += 1) {
    const norm = norms[c] ?? 0;
    norms[c] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  }
  for (let i = 0; i < rows; i += 1) {
    const base = i * cols;
    for (let c = 0; c < cols; c += 1) matrix[base + c] = (matrix[base + c] ?? 0) * (norms[c] ?? 0);
  }
  return matrix;
};

/**
 * Eigen-decomposition of a small symmetric matrix (row-major): Householder reduction to
 * tridiagonal form, then the implicit QL algorithm (tred2/tqli). Returns the eigenvalues and
 * the eigenvectors as columns of a row-major matrix.
 */
export const symmetricEigen = (
  input: Float64Array,
  size: number,
): { values: Float64Array; vectors: Float64Array } => {
  const n = size;
  const z = Float64Array.from(input);
  const d = new Float64Array(n);
  const e = new Float64Array(n);
  const at = (i: number, j: number): number => z[i * n + j] ?? 0;
  const put = (i: number, j: number, value: number): void => {
    z[i * n + j] = value;
  };
  for (let i = n - 1; i > 0; i -= 1) {
    const l = i - 1;
    let h = 0;
    if (l > 0) {
      let scale = 0;
      for (let k = 0; k <= l; k += 1) scale += Math.abs(at(i, k));
      if (scale === 0) {
        e[i] = at(i, l);
      } else {
        for (let k = 0; k <= l; k += 1) {
          put(i, k, at(i, k) / scale);
          h += at(i, k) * at(i, k);
        }
        let f = at(i, l);
        const g = f >= 0 ? -Math.sqrt(h) : Math.sqrt(h);
        e[i] = scale * g;
        h -= f * g;
        put(i, l, f - g);
        f = 0;
        for (let j = 0; j <= l; j += 1) {
          put(j, i, at(i, j) / h);
          let gg = 0;
          for (let k = 0; k <= j; k += 1) gg += at(j, k) * at(i, k);
          for (let k = j + 1; k <= l; k += 1) gg += at(k, j) * at(i, k);
          e[j] = gg / h;
          f += (e[j] ?? 0) * at(i, j);
        }
        const hh = f / (h + h);
        for (let j = 0; j <= l; j += 1) {
          const fj = at(i, j);
          const gj = (e[j] ?? 0) - hh * fj;
          e[j] = gj;
          for (let k = 0; k <= j; k += 1) put(j, k, at(j, k) - (fj * (e[k] ?? 0) + gj * at(i, k)));
        }
      }
    } else {
      e[i] = at(i, l);
    }
    d[i] = h;
  }
  d[0] = 0;
  e[0] = 0;
  for (let i = 0; i < n; i += 1) {
    const l = i - 1;
    if (d[i] !== 0) {
      for (let j = 0; j <= l; j += 1) {
        let g = 0;
        for (let k = 0; k <= l; k += 1) g += at(i, k) * at(k, j);
        for (let k = 0; k <= l; k += 1) put(k, j, at(k, j) - g * at(k, i));
      }
    }
    d[i] = at(i, i);
    put(i, i, 1);
    for (let j = 0; j <= l; j += 1) {
      put(j, i, 0);
      put(i, j, 0);
    }
  }
  // Implicit QL on the tridiagonal (d, e).
  for (let i = 1; i < n; i += 1) e[i - 1] = e[i] ?? 0;
  e[n - 1] = 0;
  for (let l = 0; l < n; l += 1) {
    let iterations = 0;
    for (;;) {
      let m = l;
      for (; m < n - 1; m += 1) {
        const dd = Math.abs(d[m] ?? 0) + Math.abs(d[m + 1] ?? 0);
        if (Math.abs(e[m] ?? 0) <= Number.EPSILON * dd) break;
      }
      if (m === l || iterations >= 60) break;
      iterations += 1;
      let g = ((d[l + 1] ?? 0) - (d[l] ?? 0)) / (2 * (e[l] ?? 0));
      let r = Math.hypot(g, 1);
      g = (d[m] ?? 0) - (d[l] ?? 0) + (e[l] ?? 0) / (g + (g >= 0 ? Math.abs(r) : -Math.abs(r)));
      let s = 1;
      let c = 1;
      let p = 0;
      let i = m - 1;
      for (; i >= l; i -= 1) {
        let f = s * (e[i] ?? 0);
        const b = c * (e[i] ?? 0);
        r = Math.hypot(f, g);
        e[i + 1] = r;
        if (r === 0) {
          d[i + 1] = (d[i + 1] ?? 0) - p;
          e[m] = 0;
          break;
        }
        s = f / r;
        c = g / r;
        g = (d[i + 1] ?? 0) - p;
        r = ((d[i] ?? 0) - g) * s + 2 * c * b;
        p = s * r;
        d[i + 1] = g + p;
        g = c * r - b;
        for (let k = 0; k < n; k += 1) {
          f = at(k, i + 1);
          put(k, i + 1, s * at(k, i) + c * f);
          put(k, i, c * at(k, i) - s * f);
        }
      }
      if (r === 0 && i >= l) continue;
      d[l] = (d[l] ?? 0) - p;
      e[l] = g;
      e[m] = 0;
    }
  }
  return { values: d, vectors: z };
};

/** A text's analyzed terms folded into the model: a `dimensions`-long vector (zero-padded). */
export const embedTerms = (
  model: LsaModel,
  terms: readonly string[],
  dimensions: number,
): Float32Array => {
  const out = new Float32Array(dimensions);
  const { vocabulary, idf, weighting, termBasis, rotation, rank, width } = model;
  const row = tfidf(terms, vocabulary, idf, weighting);
  const coords = new Float64Array(width);
  for (const [term, weight] of row) {
    const base = term * width;
    for (let c = 0; c < width; c += 1)
      coords[c] = (coords[c] ?? 0) + weight * (termBasis[base + c] ?? 0);
  }
  for (let c = 0; c < width; c += 1) {
    const value = coords[c] ?? 0;
    if (value === 0) continue;
    const base = c * rank;
    for (let r = 0; r < rank; r += 1) out[r] = (out[r] ?? 0) + value * (rotation[base + r] ?? 0);
  }
  return out;
};

/**
 * Fits on the analyzed corpus (the documents `learnFrom` marks, when given) and embeds each of
 * its documents (rows of one buffer).
 */
export const fitAndEmbed = (
  documents: readonly string[][],
  settings: FitSettings,
  learnFrom?: readonly boolean[],
): { model: LsaModel | undefined; vectors: Float32Array } => {
  const learned = learnFrom ? documents.filter((_, i) => learnFrom[i] === true) : documents;
  const model = fitModel(learned.length > 0 ? learned : documents, settings);
  const vectors = new Float32Array(documents.length * settings.dimensions);
  if (model) {
    documents.forEach((terms, i) => {
      vectors.set(embedTerms(model, terms, settings.dimensions), i * settings.dimensions);
    });
  }
  return { model, vectors };
};
