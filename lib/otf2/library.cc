#include "lib/otf2/library.h"

#include <cstdarg>
#include <cstdio>

namespace rp::otf2 {

ErrorCapture::ErrorCapture() { previous_ = OTF2_Error_RegisterCallback(&ErrorCapture::Capture, this); }

ErrorCapture::~ErrorCapture() { OTF2_Error_RegisterCallback(previous_, previous_data_); }

OTF2_ErrorCode ErrorCapture::Capture(void* user, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                                     const char* format, va_list args) {
  auto* self = static_cast<ErrorCapture*>(user);
  char text[512] = {};
  if (format != nullptr) std::vsnprintf(text, sizeof text, format, args);
  self->last_ = text[0] != '\0' ? std::string(text) : std::string(OTF2_Error_GetDescription(code));
  return code;
}

std::string ErrorCapture::Tail() const { return last_.empty() ? std::string() : " (" + last_ + ")"; }

}  // namespace rp::otf2
