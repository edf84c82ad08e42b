// The driver is in the header (CFuzzDriver.h); SwiftPM needs one source file.
