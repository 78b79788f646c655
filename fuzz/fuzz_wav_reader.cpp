// The audio reader (WAV, and whatever else libsndfile recognises in the bytes) on any file: it
// returns the samples or throws InputError.
#include <cstddef>
#include <cstdint>

#include "ardent/auralize/audio_io.h"
#include "ardent/preprocess/errors.h"
#include "input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const ardent::fuzz::InputFile file(data, size, ".wav");
    try {
        const ardent::audio::Audio a = ardent::audio::read_audio(file.path());
        if (a.channels > 0 && a.frames() > 0) (void)a.channel(a.channels - 1);
    } catch (const ardent::InputError&) {
    }
    return 0;
}
