//! Contacts between a heightfield and spheres or capsules.
