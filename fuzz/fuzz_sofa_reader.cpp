// The HRTF reader (SOFA, through libmysofa) on any file: it opens the set and gives the HRIRs of
// a few directions, or throws InputError.
#include <cstddef>
#include <cstdint>

#include "ardent/auralize/hrtf.h"
#include "ardent/preprocess/errors.h"
#include "input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const ardent::fuzz::InputFile file(data, size, ".sofa");
    try {
        const ardent::auralize::HrtfSet set(file.path(), 48000);
        for (const ardent::auralize::Point& d :
             {ardent::auralize::Point{1, 0, 0}, ardent::auralize::Point{0, 1, 0},
              ardent::auralize::Point{0, 0, -1}})
            (void)set.hrir(d);
    } catch (const ardent::InputError&) {
    }
    return 0;
}
