// Placeholder until the first file lands.
