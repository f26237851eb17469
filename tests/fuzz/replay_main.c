/* Runs a libFuzzer harness on files without libFuzzer: each argument is a file or a directory
 * of files (not recursive). Used by the ctests fuzz_corpus_* (corpus replay under the normal
 * and the sanitizer build). Exit 0 when every input was run; the harness aborts on a defect. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return 1;
  }
  size_t cap = 1 << 16, n = 0;
  uint8_t *buf = malloc(cap);
  for (;;) {
    if (!buf) {
      fclose(f);
      return 1;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (n < cap) break;
    cap *= 2;
    uint8_t *nb = realloc(buf, cap);
    if (!nb) free(buf);
    buf = nb;
  }
  fclose(f);
  /* exact-size copy so that ASan sees reads past the end */
  uint8_t *exact = malloc(n ? n : 1);
  if (!exact) {
    free(buf);
    return 1;
  }
  memcpy(exact, buf, n);
  free(buf);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  return 0;
}

int main(int argc, char **argv) {
  size_t n_run = 0;
  int bad = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "no such input %s\n", argv[i]);
      return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
      bad |= run_file(argv[i]);
      ++n_run;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (!d) return 1;
    struct dirent *de;
    while ((de = readdir(d))) {
      if (de->d_name[0] == '.') continue;
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
      bad |= run_file(p);
      ++n_run;
    }
    closedir(d);
  }
  printf("%zu inputs run\n", n_run);
  return bad || n_run == 0;
}
