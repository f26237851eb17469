// Ligand descriptors through RDKit's C++ library (descriptors.h; issue 36). The one C++ file of sitepack:
// it builds an RDKit molecule from a graph or a molfile block and asks RDKit's own descriptor functions,
// so that the values are RDKit's (Debian librdkit-dev 2022.09.3, the release of Debian's python3-rdkit).
// QED is RDKit's Python module rdkit/Chem/QED.py (version 1.1.0 in RDKit 2022.09.3) ported here: its ADS
// function, parameters, mean weights, acceptor SMARTS and structural-alert SMARTS are copied from that file
// unchanged (the SMARTS lists were generated from QED.AcceptorSmarts and QED.StructuralAlertSmarts).
#include "sitepack/descriptors.h"

#include <bitset>
#include <cmath>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <vector>

#include <GraphMol/ChemTransforms/ChemTransforms.h>
#include <GraphMol/Descriptors/Crippen.h>
#include <GraphMol/Descriptors/Lipinski.h>
#include <GraphMol/Descriptors/MolDescriptors.h>
#include <GraphMol/Descriptors/MolSurf.h>
#include <GraphMol/FileParsers/FileParsers.h>
#include <GraphMol/GraphMol.h>
#include <GraphMol/MolOps.h>
#include <GraphMol/QueryOps.h>
#include <GraphMol/SmilesParse/SmilesParse.h>
#include <GraphMol/SmilesParse/SmilesWrite.h>
#include <GraphMol/Substruct/SubstructMatch.h>
#include <RDGeneral/FileParseException.h>
#include <RDGeneral/RDLog.h>

#include "sitepack/error.h"

namespace {

// ---- QED (rdkit/Chem/QED.py, RDKit 2022.09.3) ----
#include "qed_smarts.inc"

struct Ads {
  double a, b, c, d, e, f, dmax;
};
// adsParameters of QED.py in the order of QEDproperties: MW, ALOGP, HBA, HBD, PSA, ROTB, AROM, ALERTS
const Ads kAds[8] = {
    {2.817065973, 392.5754953, 290.7489764, 2.419764353, 49.22325677, 65.37051707, 104.9805561},
    {3.172690585, 137.8624751, 2.534937431, 4.581497897, 0.822739154, 0.576295591, 131.3186604},
    {2.948620388, 160.4605972, 3.615294657, 4.435986202, 0.290141953, 1.300669958, 148.7763046},
    {1.618662227, 1010.051101, 0.985094388, 0.000000001, 0.713820843, 0.920922555, 258.1632616},
    {1.876861559, 125.2232657, 62.90773554, 87.83366614, 12.01999824, 28.51324732, 104.5686167},
    {0.010000000, 272.4121427, 2.558379970, 1.565547684, 1.271567166, 2.758063707, 105.4420403},
    {3.217788970, 957.7374108, 2.274627939, 0.000000001, 1.317690384, 0.375760881, 312.3372610},
    {0.010000000, 1199.094025, -0.09002883, 0.000000001, 0.185904477, 0.875193782, 417.7253140},
};
// WEIGHT_MEAN of QED.py
const double kWeightMean[8] = {0.66, 0.46, 0.05, 0.61, 0.06, 0.65, 0.48, 0.95};

// QED.py ads(): the asymmetric double sigmoid, divided by its maximum
double ads(double x, const Ads &p) {
  double exp1 = 1 + std::exp(-1 * (x - p.c + p.d / 2) / p.e);
  double exp2 = 1 + std::exp(-1 * (x - p.c - p.d / 2) / p.f);
  double dx = p.a + p.b / exp1 * (1 - 1 / exp2);
  return dx / p.dmax;
}

// ---- A screen before RDKit's SubstructMatch (exact: it only skips calls whose answer is known) ----
// A match maps every query atom to an atom its query accepts and every query bond to a bond its query accepts between
// the images of its ends (the tests of SubstructMatch, SubstructUtils.h atomCompat / bondCompat). The screen bounds
// each query from above: for a query atom, a Box of the values of six atom properties it can accept, read from its
// query tree (QueryOps.h; the descriptions RDKit's SMARTS parser gives): the key, atomic number + 128 if aromatic
// ("AtomAtomicNum" #n, "AtomType" C / c: makeAtomType, atomic number + 1000 if aromatic; "AtomIsAromatic" a,
// "AtomIsAliphatic" A), the formal charge ("AtomFormalCharge"), the H count ("AtomHCount", getTotalNumHs(true)), the
// degree ("AtomExplicitDegree" D, getDegree) and total degree ("AtomTotalDegree" X), ring membership ("AtomInRing",
// "AtomInNRings": AtomRingQuery, -1 any ring); "AtomAnd" intersects its children's boxes, "AtomOr" joins them
// dimension by dimension; any other node (valence, isotope, recursive SMARTS $(...), a negated node, a tolerance)
// accepts every value. For a query bond, the bond types it can accept ("BondOrder", "SingleOrAromaticBond",
// "BondAnd", "BondOr"; any other: all). Values beyond a dimension's range share its last bit. So a box holds every
// atom the query accepts, and when some query atom has no atom in its box, or some query bond no bond of its types
// between atoms of its ends' boxes (Crippen: or query atom 0 no untyped atom), there is no match: SubstructMatch
// would return none and is not called. Otherwise it is called as before: the descriptors are exactly RDKit's.
typedef std::bitset<256> Keys;

struct Box {
  Keys key;
  uint32_t charge, hs, degree, total_degree;  // bit v (charge: v + 15), clamped to 0..31
  uint32_t ring;                              // bit 0 not in a ring, bit 1 in one
  static Box all() { return Box{Keys().set(), ~0u, ~0u, ~0u, ~0u, 3u}; }
  static Box none() { return Box{Keys(), 0, 0, 0, 0, 0}; }
  Box operator&(const Box &o) const {
    return Box{key & o.key,  charge & o.charge, hs & o.hs, degree & o.degree, total_degree & o.total_degree,
               ring & o.ring};
  }
  Box operator|(const Box &o) const {
    return Box{key | o.key,  charge | o.charge, hs | o.hs, degree | o.degree, total_degree | o.total_degree,
               ring | o.ring};
  }
};

uint32_t bit(int v) { return 1u << (v < 0 ? 0 : v > 31 ? 31 : v); }

// The box of an equality node @p d = @p v (or all values when it is not one of the six properties).
Box equality_box(const std::string &d, int v) {
  Box b = Box::all();
  if (d == "AtomAtomicNum" && v >= 0 && v < 128) b.key = Keys().set((size_t)v).set((size_t)v + 128);
  else if (d == "AtomType" && v >= 0 && v < 1128 && v % 1000 < 128)
    b.key = Keys().set((size_t)(v % 1000 + (v >= 1000 ? 128 : 0)));
  else if ((d == "AtomIsAromatic" || d == "AtomIsAliphatic") && v == 1) {
    b.key.reset();
    for (size_t i = 0; i < 128; i++) b.key.set(d == "AtomIsAromatic" ? i + 128 : i);
  } else if (d == "AtomFormalCharge") b.charge = bit(v + 15);
  else if (d == "AtomHCount") b.hs = bit(v);
  else if (d == "AtomExplicitDegree") b.degree = bit(v);
  else if (d == "AtomTotalDegree") b.total_degree = bit(v);
  else if (d == "AtomInRing" && (v == 0 || v == 1)) b.ring = v ? 2u : 1u;
  else if (d == "AtomInNRings") b.ring = v == 0 ? 1u : 2u;
  return b;
}

Box box_of(const RDKit::Atom::QUERYATOM_QUERY *q) {
  if (q->getNegation()) return Box::all();
  const std::string &d = q->getDescription();
  if (d == "AtomAnd" || d == "AtomOr") {
    Box b = d == "AtomAnd" ? Box::all() : Box::none();
    for (auto it = q->beginChildren(); it != q->endChildren(); ++it)
      b = d == "AtomAnd" ? b & box_of(it->get()) : b | box_of(it->get());
    return b;
  }
  const auto *eq = dynamic_cast<const RDKit::ATOM_EQUALS_QUERY *>(q);
  return eq && eq->getTol() == 0 ? equality_box(d, eq->getVal()) : Box::all();
}

uint64_t bond_types_of(const RDKit::Bond::QUERYBOND_QUERY *q) {
  if (q->getNegation()) return ~0ull;
  const std::string &d = q->getDescription();
  if (d == "BondAnd" || d == "BondOr") {
    uint64_t t = d == "BondAnd" ? ~0ull : 0;
    for (auto it = q->beginChildren(); it != q->endChildren(); ++it)
      t = d == "BondAnd" ? t & bond_types_of(it->get()) : t | bond_types_of(it->get());
    return t;
  }
  const auto *eq = dynamic_cast<const RDKit::BOND_EQUALS_QUERY *>(q);
  if (!eq || eq->getTol() != 0) return ~0ull;
  const int v = eq->getVal();
  if (d == "BondOrder" && v >= 0 && v < 64) return 1ull << v;
  if (d == "SingleOrAromaticBond" && v == 1) return (1ull << RDKit::Bond::SINGLE) | (1ull << RDKit::Bond::AROMATIC);
  return ~0ull;
}

// A query's boxes: per atom; per bond its ends and types.
struct Screen {
  std::vector<Box> atoms;
  struct QBond {
    unsigned u, v;
    uint64_t types;
  };
  std::vector<QBond> bonds;
};

Screen screen_of(const RDKit::ROMol &q) {
  Screen s;
  for (const RDKit::Atom *a : q.atoms()) s.atoms.push_back(a->hasQuery() ? box_of(a->getQuery()) : Box::all());
  for (const RDKit::Bond *b : q.bonds())
    s.bonds.push_back({b->getBeginAtomIdx(), b->getEndAtomIdx(), b->hasQuery() ? bond_types_of(b->getQuery()) : ~0ull});
  return s;
}

// The molecule's side: each atom's six values (as Box bits), each bond's ends and type.
struct MolKeys {
  struct A {
    int key;
    uint32_t charge, hs, degree, total_degree, ring;
  };
  struct B {
    unsigned x, y;
    uint64_t type;
  };
  std::vector<A> atoms;
  std::vector<B> bonds;
  explicit MolKeys(const RDKit::ROMol &m) {
    const RDKit::RingInfo *ri = m.getRingInfo();
    for (const RDKit::Atom *a : m.atoms()) {
      uint32_t ring = !ri->isInitialized() ? 3u : ri->numAtomRings(a->getIdx()) ? 2u : 1u;
      uint32_t hs = ~0u, total_degree = ~0u;  // any, should RDKit refuse them (no implicit valence computed)
      try {
        hs = bit((int)a->getTotalNumHs(true)), total_degree = bit((int)a->getTotalDegree());
      } catch (...) {}
      atoms.push_back({(a->getAtomicNum() & 127) + (a->getIsAromatic() ? 128 : 0), bit(a->getFormalCharge() + 15), hs,
                       bit((int)a->getDegree()), total_degree, ring});
    }
    for (const RDKit::Bond *b : m.bonds()) {
      int t = (int)b->getBondType();
      bonds.push_back({b->getBeginAtomIdx(), b->getEndAtomIdx(), t >= 0 && t < 64 ? 1ull << t : ~0ull});
    }
  }
};

bool in_box(const MolKeys::A &a, const Box &b) {
  return b.key[(size_t)a.key] && (a.charge & b.charge) && (a.hs & b.hs) && (a.degree & b.degree) &&
         (a.total_degree & b.total_degree) && (a.ring & b.ring);
}

// False when query @p s has no match in the molecule of @p m; @p root, when not NULL, the atoms query atom 0 may
// map to (Crippen: those not yet typed).
bool may_match(const MolKeys &m, const Screen &s, const std::vector<char> *root) {
  const size_t n = m.atoms.size(), nq = s.atoms.size();
  thread_local std::vector<char> cand;  // [nq * n]: atom j in the box of query atom i
  cand.assign(nq * n, 0);
  for (size_t i = 0; i < nq; i++) {
    bool any = false;
    for (size_t j = 0; j < n; j++) {
      char c = (i || !root || (*root)[j]) && in_box(m.atoms[j], s.atoms[i]);
      cand[i * n + j] = c;
      any = any || c;
    }
    if (!any) return false;
  }
  for (const auto &qb : s.bonds) {
    const char *u = &cand[qb.u * n], *v = &cand[qb.v * n];
    bool any = false;
    for (const auto &b : m.bonds)
      if ((b.type & qb.types) && ((u[b.x] && v[b.y]) || (u[b.y] && v[b.x]))) {
        any = true;
        break;
      }
    if (!any) return false;
  }
  return true;
}

struct Pattern {
  std::unique_ptr<RDKit::ROMol> mol;
  Screen screen;
};

struct Patterns {
  std::vector<Pattern> acceptors, alerts;
  std::unique_ptr<RDKit::ROMol> aliphatic_rings;  // QED.py AliphaticRings
  std::vector<Screen> crippen;                    // of each pattern of RDKit's CrippenParamCollection, in order
  bool ok = true;
};

std::unique_ptr<RDKit::ROMol> smarts(const char *s, bool *ok) {
  std::unique_ptr<RDKit::ROMol> m(RDKit::SmartsToMol(s));
  if (!m) *ok = false;
  return m;
}

Pattern pattern(const char *s, bool *ok) {
  Pattern p{smarts(s, ok), Screen()};
  if (p.mol) p.screen = screen_of(*p.mol);
  return p;
}

// The patterns, parsed once (C++11 guarantees one thread-safe initialisation).
const Patterns &patterns() {
  static const Patterns p = [] {
    Patterns q;
    for (const char *s : kAcceptorSmarts) q.acceptors.push_back(pattern(s, &q.ok));
    for (const char *s : kAlertSmarts) q.alerts.push_back(pattern(s, &q.ok));
    q.aliphatic_rings = smarts("[$([A;R][!a])]", &q.ok);
    for (const auto &c : *RDKit::Descriptors::CrippenParamCollection::getParams())
      q.crippen.push_back(c.dp_pattern ? screen_of(*c.dp_pattern) : Screen());
    return q;
  }();
  return p;
}

size_t count_matches(const RDKit::ROMol &mol, const MolKeys &k, const Pattern &q) {
  RDKit::SubstructMatchParameters ps;  // GetSubstructMatches defaults: uniquify, maxMatches 1000
  if (!may_match(k, q.screen, nullptr)) return 0;
  return RDKit::SubstructMatch(mol, *q.mol, ps).size();
}

bool has_match(const RDKit::ROMol &mol, const MolKeys &k, const Pattern &q) {
  RDKit::SubstructMatchParameters ps;
  ps.maxMatches = 1;
  if (!may_match(k, q.screen, nullptr)) return false;
  return !RDKit::SubstructMatch(mol, *q.mol, ps).empty();
}

// Crippen.cpp's calcCrippenDescriptors(mol, logp, mr) (includeHs: on a copy with every hydrogen explicit,
// MolOps::addHs(mol, false, false)) and its getCrippenAtomContribs, step for step: the parameters in their order, each
// typing the atoms not yet typed at which one of its matches is rooted (SubstructMatch(mol, pattern, matches,
// uniquify false, recursion possible: maxMatches 1000)), until every atom is typed; logp and mr the sums of the
// contributions in atom order. The one change: a pattern that the screen shows has no match rooted at an untyped atom
// is not matched (RDKit's loop would type nothing with it).
void crippen(const RDKit::ROMol &mol, double *logp, double *mr) {
  const std::vector<Screen> &screen = patterns().crippen;
  std::unique_ptr<RDKit::ROMol> h(RDKit::MolOps::addHs(mol, false, false));
  const size_t n = h->getNumAtoms();
  const MolKeys keys(*h);
  std::vector<double> lp(n, 0.0), m(n, 0.0);
  std::vector<char> needed(n, 1);
  size_t left = n, k = 0;
  for (const auto &c : *RDKit::Descriptors::CrippenParamCollection::getParams()) {
    if (!left) break;
    if (k < screen.size() && !may_match(keys, screen[k++], &needed)) continue;
    std::vector<RDKit::MatchVectType> matches;
    RDKit::SubstructMatch(*h, *c.dp_pattern, matches, false, true);
    for (const auto &match : matches) {
      const int idx = match[0].second;
      if (!needed[idx]) continue;
      needed[idx] = 0, left--;
      lp[idx] = c.logp, m[idx] = c.mr;
    }
  }
  double a = 0.0, b = 0.0;
  for (double x : lp) a += x;
  for (double x : m) b += x;
  *logp = a, *mr = b;
}

// QED.py properties() and qed(w=WEIGHT_MEAN) of @p mol (hydrogens already removed, as properties() does), with
// the properties compute() has already: MW (_CalcMolWt), ALOGP (MolLogP), HBD (CalcNumHBD), PSA (TPSA) and ROTB
// (CalcNumRotatableBonds with Strict: RDKit's Default option, which compute() used, is Strict -- Lipinski.h "uses
// the default choice (normally Strict)", and sitepack never changes it; equal on every corpus molecule).
double qed(const RDKit::ROMol &mol, double mw, double logp, double hbd, double tpsa, double rotb) {
  const Patterns &p = patterns();
  if (!p.ok) return NAN;
  double hba = 0, alerts = 0;
  const MolKeys keys(mol);
  for (const auto &q : p.acceptors) hba += (double)count_matches(mol, keys, q);
  for (const auto &q : p.alerts) alerts += has_match(mol, keys, q) ? 1 : 0;
  std::unique_ptr<RDKit::ROMol> stripped(RDKit::deleteSubstructs(mol, *p.aliphatic_rings));
  std::vector<std::vector<int>> rings;
  double arom = (double)RDKit::MolOps::findSSSR(*stripped, rings);
  double x[8] = {mw, logp, hba, hbd, tpsa, rotb, arom, alerts};
  double t = 0, wsum = 0;
  for (int i = 0; i < 8; i++) {
    t += kWeightMean[i] * std::log(ads(x[i], kAds[i]));
    wsum += kWeightMean[i];
  }
  return std::exp(t / wsum);
}

// Every descriptor of the sanitized, hydrogen-free @p mol into @p d.
void compute(const RDKit::ROMol &mol, sp_descriptors *d) {
  namespace D = RDKit::Descriptors;
  double mw = D::calcAMW(mol), tpsa = D::calcTPSA(mol);
  unsigned hbd = D::calcNumHBD(mol), rotb = D::calcNumRotatableBonds(mol);
  d->mw = (float)mw;
  d->heavy_atoms = (int32_t)mol.getNumHeavyAtoms();
  d->formal_charge = RDKit::MolOps::getFormalCharge(mol);
  d->hbd = (int32_t)hbd;
  d->hba = (int32_t)D::calcNumHBA(mol);
  d->hbd_lipinski = (int32_t)D::calcLipinskiHBD(mol);
  d->hba_lipinski = (int32_t)D::calcLipinskiHBA(mol);
  d->rotatable_bonds = (int32_t)rotb;
  d->tpsa = (float)tpsa;
  double logp = 0, mr = 0;
  crippen(mol, &logp, &mr);
  d->logp = (float)logp;
  d->mr = (float)mr;
  d->n_rings = (int32_t)D::calcNumRings(mol);
  d->n_aromatic_rings = (int32_t)D::calcNumAromaticRings(mol);
  d->fsp3 = (float)D::calcFractionCSP3(mol);
  d->qed = (float)qed(mol, mw, logp, (double)hbd, tpsa, (double)rotb);
  d->flags = SP_DESCF_COMPUTED;
  d->flags |= sp_desc_rule_flags(d);
}

void quiet_rdkit() {
  static const bool done = [] {
    RDLog::InitLogs();
    boost::logging::disable_logs("rdApp.*");
    return true;
  }();
  (void)done;
}

// Two caches of this process, bounded (each emptied at kCacheMax entries), both exact:
//  - by the exact input graph (every element, charge, bond and order in the order given): copies of one ligand
//    in a file are looked up before RDKit reads them;
//  - by the sanitized molecule's canonical isomeric SMILES (RDKit's MolToSmiles): the identity of what every
//    descriptor here is a function of (atoms, charges, hydrogen counts, isotopes, bonds and aromaticity as
//    RDKit perceived them), whatever the atom order: one molecule in many files, an instance and its component,
//    are computed once. On the corpus 1716 instances are 263 molecules.
constexpr size_t kCacheMax = 1u << 16;
std::mutex cache_mutex;
std::unordered_map<std::string, sp_descriptors> &cache() {
  static std::unordered_map<std::string, sp_descriptors> c;
  return c;
}
std::unordered_map<std::string, sp_descriptors> &smiles_cache() {
  static std::unordered_map<std::string, sp_descriptors> c;
  return c;
}

void cache_put(std::unordered_map<std::string, sp_descriptors> &c, std::string key, const sp_descriptors &d) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (c.size() >= kCacheMax) c.clear();
  c.emplace(std::move(key), d);
}

bool cache_get(std::unordered_map<std::string, sp_descriptors> &c, const std::string &key, sp_descriptors *d) {
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = c.find(key);
  if (it == c.end()) return false;
  *d = it->second;
  return true;
}

// The descriptors of the sanitized molecule @p m, through the SMILES cache.
void compute_cached(const RDKit::ROMol &m, sp_descriptors *out) {
  std::string key = RDKit::MolToSmiles(m);
  if (cache_get(smiles_cache(), key, out)) return;
  compute(m, out);
  cache_put(smiles_cache(), std::move(key), *out);
}

// The steps of RDKit's molfile reader (MolFileParser.cpp finishMolProcessing with sanitize and removeHs): the
// cleanup step of sanitization, then removeHs, which sanitizes the molecule without its explicit hydrogens;
// then compute. The error codes of descriptors.h.
int finish(RDKit::RWMol &m, sp_descriptors *out) {
  try {
    unsigned int failed = 0;
    RDKit::MolOps::sanitizeMol(m, failed, RDKit::MolOps::SANITIZE_CLEANUP);
    RDKit::MolOps::removeHs(m, false, false);
  } catch (const RDKit::MolSanitizeException &) {
    return SP_E_BAD_VALUE;
  }
  compute_cached(m, out);
  return 0;
}

std::string graph_key(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                      const uint32_t *bond_atoms, const uint8_t *bond_order) {
  std::string k;
  k.reserve(16 + 2 * n_atoms + 9 * n_bonds);
  k.append(reinterpret_cast<const char *>(&n_atoms), sizeof n_atoms);
  k.append(reinterpret_cast<const char *>(element), n_atoms);
  for (size_t i = 0; i < n_atoms; i++) k.push_back(charge ? (char)charge[i] : 0);
  k.append(reinterpret_cast<const char *>(bond_atoms), 2 * n_bonds * sizeof *bond_atoms);
  k.append(reinterpret_cast<const char *>(bond_order), n_bonds);
  return k;
}

int build_and_finish(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                     const uint32_t *bond_atoms, const uint8_t *bond_order, sp_descriptors *out) {
  RDKit::RWMol m;
  for (size_t i = 0; i < n_atoms; i++) {
    if (element[i] > 118) return SP_E_BAD_VALUE;
    auto *a = new RDKit::Atom((int)element[i]);
    a->setFormalCharge(charge ? charge[i] : 0);
    m.addAtom(a, false, true);
  }
  for (size_t k = 0; k < n_bonds; k++) {
    uint32_t i = bond_atoms[2 * k], j = bond_atoms[2 * k + 1];
    if (i >= n_atoms || j >= n_atoms || i == j || m.getBondBetweenAtoms(i, j)) return SP_E_BAD_VALUE;
    uint8_t o = bond_order[k];
    RDKit::Bond::BondType t = o == 2   ? RDKit::Bond::DOUBLE
                              : o == 3 ? RDKit::Bond::TRIPLE
                              : o == 4 ? RDKit::Bond::AROMATIC
                                       : RDKit::Bond::SINGLE;
    unsigned nb = m.addBond(i, j, t);
    if (o == 4) {  // as the molfile reader marks bond type 4
      m.getBondWithIdx(nb - 1)->setIsAromatic(true);
      m.getAtomWithIdx(i)->setIsAromatic(true);
      m.getAtomWithIdx(j)->setIsAromatic(true);
    }
  }
  return finish(m, out);
}

// The error code (descriptors.h) of the exception being handled; called in a catch block only: RDKit's
// sanitization and molfile parse errors SP_E_BAD_VALUE, out of memory SP_E_NOMEM, any other SP_E_INTERNAL.
int exception_code() {
  try {
    throw;
  } catch (const RDKit::MolSanitizeException &) {
    return SP_E_BAD_VALUE;
  } catch (const RDKit::FileParseException &) {
    return SP_E_BAD_VALUE;
  } catch (const std::bad_alloc &) {
    return SP_E_NOMEM;
  } catch (...) {
    return SP_E_INTERNAL;
  }
}

}  // namespace

extern "C" {

void sp_desc_clear(sp_descriptors *d) {
  d->mw = d->tpsa = d->logp = d->mr = d->fsp3 = d->qed = NAN;
  d->heavy_atoms = d->formal_charge = d->hbd = d->hba = d->hbd_lipinski = d->hba_lipinski = -1;
  d->rotatable_bonds = d->n_rings = d->n_aromatic_rings = -1;
  d->flags = 0;
}

uint8_t sp_desc_rule_flags(const sp_descriptors *d) {
  if (!(d->flags & SP_DESCF_COMPUTED)) return 0;
  int ro5_violations = (d->mw > 500) + (d->logp > 5) + (d->hbd_lipinski > 5) + (d->hba_lipinski > 10);
  uint8_t f = 0;
  if (ro5_violations <= 1) f |= SP_DESCF_RO5;
  if (d->mw <= 300 && d->logp <= 3 && d->hbd <= 3 && d->hba <= 3 && d->rotatable_bonds <= 3 && d->tpsa <= 60)
    f |= SP_DESCF_RO3;
  if (ro5_violations == 0 && d->rotatable_bonds <= 10 && d->tpsa <= 140 && d->heavy_atoms >= 10)
    f |= SP_DESCF_DRUG_LIKE;
  return f;
}

int sp_desc_from_graph(size_t n_atoms, const uint8_t *element, const int8_t *charge, size_t n_bonds,
                       const uint32_t *bond_atoms, const uint8_t *bond_order, sp_descriptors *out) {
  sp_desc_clear(out);
  if ((n_atoms && !element) || (n_bonds && (!bond_atoms || !bond_order))) return SP_E_INVALID;
  quiet_rdkit();
  int rc;
  try {
    std::string key = graph_key(n_atoms, element, charge, n_bonds, bond_atoms, bond_order);
    if (cache_get(cache(), key, out)) return (out->flags & SP_DESCF_COMPUTED) ? 0 : SP_E_BAD_VALUE;
    rc = build_and_finish(n_atoms, element, charge, n_bonds, bond_atoms, bond_order, out);
    if (rc == 0 || rc == SP_E_BAD_VALUE) {
      if (rc) sp_desc_clear(out);
      cache_put(cache(), std::move(key), *out);
    }
  } catch (...) {
    rc = exception_code();
  }
  if (rc) sp_desc_clear(out);
  return rc;
}

int sp_desc_from_molblock(const char *molblock, sp_descriptors *out) {
  sp_desc_clear(out);
  if (!molblock) return SP_E_INVALID;
  quiet_rdkit();
  int rc = 0;
  try {
    std::unique_ptr<RDKit::RWMol> m(RDKit::MolBlockToMol(molblock, true, true));
    if (!m) rc = SP_E_BAD_VALUE;
    else compute_cached(*m, out);
  } catch (...) {
    rc = exception_code();
  }
  if (rc) sp_desc_clear(out);
  return rc;
}

}  // extern "C"
