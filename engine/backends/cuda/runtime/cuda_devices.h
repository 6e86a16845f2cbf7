// The GPUs this process can use, and making one of them current for the calling thread.
#pragma once

namespace qv::cuda {

// Throws Error(Status::kDevice) naming gpu(id) and why it cannot be used: no driver, no device, or an
// id beyond the devices present. The device count is read once per process.
void RequireDevice(int id);

// Makes `id` the calling thread's current device for its lifetime, then restores the previous one.
class CurrentDevice {
 public:
  explicit CurrentDevice(int id);
  ~CurrentDevice();
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
};

// CurrentDevice for cleanup that must not throw (destructors): a failure to switch is ignored, and
// whatever error the scope leaves behind is cleared when it ends.
class CurrentDeviceQuietly {
 public:
  explicit CurrentDeviceQuietly(int id);
  ~CurrentDeviceQuietly();
  CurrentDeviceQuietly(const CurrentDeviceQuietly&) = delete;
  CurrentDeviceQuietly& operator=(const CurrentDeviceQuietly&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace qv::cuda
