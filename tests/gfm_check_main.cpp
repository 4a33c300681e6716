// gfm_check FILE...: each markdown file checked against what GitHub needs to render its
// tables and footnotes (gfm_check.h); prints each problem with its file, exits 1 when
// there is one, 2 when a file cannot be read.
#include <fstream>
#include <iostream>
#include <sstream>

#include "gfm_check.h"

int main(int argc, char **argv) {
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        std::ifstream file(argv[i]);
        if (!file) {
            std::cerr << "gfm_check: cannot read " << argv[i] << "\n";
            return 2;
        }
        std::ostringstream text;
        text << file.rdbuf();
        for (const std::string &problem : GfmCheck::problems(text.str())) {
            std::cout << argv[i] << ": " << problem << "\n";
            status = 1;
        }
    }
    return status;
}
