# guest-6.1: the writeback model of Debian's 6.1 kernel (bookworm) in a
# qemu TCG guest of vm/ (one CPU, ext4 on the first virtio disk, HZ 250).
# Each key of [model] is a writer option (stalewin-writer --help, "writeback
# model"); the values were traced in that guest (tests/server/data/README.md)
# and are what `stalewin validate --vm` holds against the kernel.  The
# writeback interval and expiry are not here: they are the guest's sysctls
# (vm run --sysctl), which the writer reads.
[profile]
kernel = 6.1
validated = stalewin validate --vm: vm-eager-stock against the stock 6.1 guest, vm-deferred-patched and vm-lang-patched against the patched 6.1 guest
[model]
# a flusher run finds the disk's wb over its background threshold while
# its writeout share reads 0 (wb_check_background_flush)
wb-bg-share = fprop
# the file's creation journals 5 metadata blocks the first checkpoint
# writeback writes; a never-written page's allocation adds 2
create-meta-pages = 5
alloc-meta-pages = 2
# a flusher run that writes the file: the commit it waits for, the
# allocation, to the background loop's next pass; its pages' block I/O
wb-run-commit-us = 4200
wb-run-alloc-us = 17400
wb-run-pass-us = 6000
wb-run-io-us = 1500
# NFS readers read ~60 ms after each update and knfsd journals atime
atime-read-ms = 60
# stock ext4 submits a never-written page after its delalloc allocation
wb-run-submit-us = 12000
# the timer wheel's buckets on CLOCK_MONOTONIC / tick, as this profile
# was validated (the host's writer takes its kernel's own jiffies since;
# the guests' are not yet validated with them: docs/validation-log.md)
jiffies = mono
