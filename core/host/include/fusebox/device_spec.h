// The GPU a host-backend run plans its kernels for ([runtime] device): a
// preset name ("h100", "h200") and/or key=value properties, e.g.
// "h100,l2=62914560" or "sm=90,sms=132,shared=232448". The schedulers then
// choose grids, blocks, shared memory and clusters as they would on that
// GPU, and the host backend runs those kernels (docs/config.md).
#pragma once

#include <fusebox/error.h>
#include <fusebox/scheduler.h>

#include <string>
#include <string_view>

namespace fusebox {

// The properties `text` names, on the host backend (is_gpu stays false: the
// kernels run on the host). A bad name, key or value is a UserError at
// `where` naming the item and what was expected.
DeviceProperties parseDeviceSpec(std::string_view text, const SourceLocation& where);

// The key=value text that parseDeviceSpec turns back into `device`'s
// planning properties (`--dump device_properties` prints it, so a GPU's
// properties can be copied into a host run's config).
std::string deviceSpecText(const DeviceProperties& device);

}  // namespace fusebox
