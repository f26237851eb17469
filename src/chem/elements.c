/* Elements: see include/sitepack/elements.h. */
#include "sitepack/elements.h"

#include <ctype.h>
#include <string.h>

static const char *const k_sym[SP_ELEMENT_MAX + 1] = {
    "X",  "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg", "Al", "Si", "P",  "S",
    "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As",
    "Se", "Br", "Kr", "Rb", "Sr", "Y",  "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn",
    "Sb", "Te", "I",  "Xe", "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho",
    "Er", "Tm", "Yb", "Lu", "Hf", "Ta", "W",  "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po",
    "At", "Rn", "Fr", "Ra", "Ac", "Th", "Pa", "U",  "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md",
    "No", "Lr", "Rf", "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og"};

uint8_t sp_element_from_symbol(const char *sym, size_t n) {
  while (n && (*sym == ' ' || *sym == '\t')) ++sym, --n;
  while (n && (sym[n - 1] == ' ' || sym[n - 1] == '\t')) --n;
  if (n == 0 || n > 2) return 0;
  char a = (char)toupper((unsigned char)sym[0]);
  char b = n == 2 ? (char)tolower((unsigned char)sym[1]) : 0;
  if (n == 1 && (a == 'D' || a == 'T')) return 1;
  for (int z = 1; z <= SP_ELEMENT_MAX; ++z)
    if (k_sym[z][0] == a && k_sym[z][1] == b) return (uint8_t)z;
  return 0;
}

const char *sp_element_symbol(uint8_t z) { return z <= SP_ELEMENT_MAX ? k_sym[z] : "X"; }

bool sp_element_is_metal(uint8_t z) {
  switch (z) {
    case 0: case 1: case 2: case 5: case 6: case 7: case 8: case 9: case 10: case 14: case 15: case 16:
    case 17: case 18: case 32: case 33: case 34: case 35: case 36: case 51: case 52: case 53: case 54:
    case 85: case 86: case 117: case 118:
      return false;
    default:
      return z <= SP_ELEMENT_MAX;
  }
}

/* Cordero et al. 2008 covalent radii (Å), index = Z; 0 = not tabulated. */
static const float k_cov[SP_ELEMENT_MAX + 1] = {
    0,    0.31f, 0.28f, 1.28f, 0.96f, 0.84f, 0.76f, 0.71f, 0.66f, 0.57f, 0.58f, 1.66f, 1.41f, 1.21f, 1.11f,
    1.07f, 1.05f, 1.02f, 1.06f, 2.03f, 1.76f, 1.70f, 1.60f, 1.53f, 1.39f, 1.39f, 1.32f, 1.26f, 1.24f, 1.32f,
    1.22f, 1.22f, 1.20f, 1.19f, 1.20f, 1.20f, 1.16f, 2.20f, 1.95f, 1.90f, 1.75f, 1.64f, 1.54f, 1.47f, 1.46f,
    1.42f, 1.39f, 1.45f, 1.44f, 1.42f, 1.39f, 1.39f, 1.38f, 1.39f, 1.40f, 2.44f, 2.15f, 2.07f, 2.04f, 2.03f,
    2.01f, 1.99f, 1.98f, 1.98f, 1.96f, 1.94f, 1.92f, 1.92f, 1.89f, 1.90f, 1.87f, 1.87f, 1.75f, 1.70f, 1.62f,
    1.51f, 1.44f, 1.41f, 1.36f, 1.36f, 1.32f, 1.45f, 1.46f, 1.48f, 1.40f, 1.50f, 1.50f, 2.60f, 2.21f, 2.15f,
    2.06f, 2.00f, 1.96f, 1.90f, 1.87f, 1.80f, 1.69f};

float sp_element_covalent_radius(uint8_t z) {
  if (z == 0 || z > SP_ELEMENT_MAX || k_cov[z] == 0) return 1.5f;
  return k_cov[z];
}

/* Bondi 1964 van der Waals radii (Å); elements Bondi omits from Alvarez 2013. */
float sp_element_vdw_radius(uint8_t z) {
  switch (z) {
    case 1: return 1.20f;  case 2: return 1.40f;  case 3: return 1.82f;  case 5: return 1.92f;
    case 6: return 1.70f;  case 7: return 1.55f;  case 8: return 1.52f;  case 9: return 1.47f;
    case 10: return 1.54f; case 11: return 2.27f; case 12: return 1.73f; case 13: return 1.84f;
    case 14: return 2.10f; case 15: return 1.80f; case 16: return 1.80f; case 17: return 1.75f;
    case 18: return 1.88f; case 19: return 2.75f; case 20: return 2.31f; case 26: return 2.04f;
    case 28: return 1.63f; case 29: return 1.40f; case 30: return 1.39f; case 31: return 1.87f;
    case 33: return 1.85f; case 34: return 1.90f; case 35: return 1.85f; case 36: return 2.02f;
    case 46: return 1.63f; case 47: return 1.72f; case 48: return 1.58f; case 49: return 1.93f;
    case 50: return 2.17f; case 53: return 1.98f; case 54: return 2.16f; case 78: return 1.75f;
    case 79: return 1.66f; case 80: return 1.55f; case 81: return 1.96f; case 82: return 2.02f;
    case 92: return 1.86f;
    case 25: return 2.05f; /* Mn, Alvarez 2013 */
    case 27: return 2.00f; /* Co, Alvarez 2013 */
    default: return 2.0f;
  }
}
